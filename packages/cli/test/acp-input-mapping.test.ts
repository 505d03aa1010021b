import { describe, expect, test } from "vitest";
import { cleanServerName, sessionMcpServers } from "../src/acp/mcp-servers.js";
import { embeddedText, linkReference, promptInput } from "../src/acp/prompt-input.js";

// What the editor sends, as Penguin takes it: MCP server definitions and prompt blocks.

describe("the editor's MCP servers as Penguin's", () => {
  test("names are cleaned to Penguin's characters, at most 64, and kept apart when two meet", () => {
    expect(cleanServerName("Editor Tools")).toBe("Editor_Tools");
    expect(cleanServerName("git-hub_2")).toBe("git-hub_2");
    expect(cleanServerName("ünïcode.svc")).toBe("_n_code_svc");
    expect(cleanServerName("…")).toBe("server");
    expect(cleanServerName("x".repeat(80))).toHaveLength(64);
    const names = sessionMcpServers([
      { name: "my docs", command: "docs", args: [], env: [] },
      { name: "my.docs", command: "docs", args: [], env: [] },
      { name: "y".repeat(70), command: "a", args: [], env: [] },
      { name: "y".repeat(64), command: "b", args: [], env: [] },
    ]).map((server) => server.name);
    expect(names).toEqual(["my_docs", "my_docs_2", "y".repeat(64), `${"y".repeat(62)}_2`]);
  });

  test("stdio keeps command and args and turns the env list into a record; http and sse keep url and headers", () => {
    expect(
      sessionMcpServers([
        {
          name: "local",
          command: "/usr/bin/node",
          args: ["server.js", "--flag"],
          env: [
            { name: "TOKEN", value: "t-1" },
            { name: "MODE", value: "dev" },
          ],
        },
        {
          type: "http",
          name: "remote",
          url: "https://mcp.example/mcp",
          headers: [{ name: "Authorization", value: "Bearer x" }],
        },
        { type: "sse", name: "old", url: "https://mcp.example/sse", headers: [] },
      ]),
    ).toEqual([
      {
        name: "local",
        config: {
          transport: "stdio",
          command: "/usr/bin/node",
          args: ["server.js", "--flag"],
          env: { TOKEN: "t-1", MODE: "dev" },
        },
      },
      {
        name: "remote",
        config: { transport: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer x" } },
      },
      { name: "old", config: { transport: "sse", url: "https://mcp.example/sse" } },
    ]);
    expect(sessionMcpServers(undefined)).toEqual([]);
  });
});

describe("prompt blocks as a run's input", () => {
  test("text only stays a plain string; images come apart as data URLs", () => {
    expect(
      promptInput([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
    ).toBe("a\nb");
    expect(
      promptInput([
        { type: "text", text: "look" },
        { type: "image", mimeType: "IMAGE/PNG", data: "AAAA" },
        { type: "resource", resource: { uri: "file:///p.jpg", blob: "BBBB", mimeType: "image/jpeg" } },
      ]),
    ).toEqual({ text: "look", images: ["data:image/png;base64,AAAA", "data:image/jpeg;base64,BBBB"] });
  });

  test("an embedded text is fenced with more backticks than it holds", () => {
    expect(embeddedText("file:///a.md", "plain")).toBe("Contents of file:///a.md:\n```\nplain\n```");
    expect(embeddedText("file:///b.md", "x ```` y\n")).toBe(
      "Contents of file:///b.md:\n`````\nx ```` y\n`````",
    );
  });

  test("a link is a short reference: a local file by its path, else name and URI", () => {
    expect(linkReference("file:///home/me/app.ts", "app.ts")).toBe("[file: /home/me/app.ts]");
    expect(linkReference("https://example.test/x", "x")).toBe("[resource x: https://example.test/x]");
    expect(linkReference("https://example.test/x", "https://example.test/x")).toBe(
      "[resource: https://example.test/x]",
    );
  });

  test("blocks Penguin does not take are refused as invalid params, naming what is wrong", () => {
    expect(() => promptInput([{ type: "audio", mimeType: "audio/wav", data: "AA" }])).toThrow(
      /prompt blocks of type audio are not supported/,
    );
    expect(() =>
      promptInput([
        { type: "resource", resource: { uri: "file:///a.pdf", blob: "AA", mimeType: "application/pdf" } },
      ]),
    ).toThrow(/the embedded resource file:\/\/\/a.pdf of type application\/pdf is not supported/);
    expect(() => promptInput([{ type: "image", mimeType: "image/bmp", data: "AA" }])).toThrow(
      expect.objectContaining({ code: -32602 }),
    );
  });
});
