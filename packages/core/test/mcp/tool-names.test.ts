import { describe, expect, it } from "vitest";
import { mcpSecretValues } from "../../src/mcp/secrets.js";
import { mcpToolName, ToolNamer } from "../../src/mcp/tool-names.js";

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool> when that is already a name providers accept", () => {
    expect(mcpToolName("docs", "search")).toBe("mcp__docs__search");
    expect(mcpToolName("my-server", "get_page-2")).toBe("mcp__my-server__get_page-2");
  });

  it("replace characters providers refuse and add a hash, so two originals never meet", () => {
    const dotted = mcpToolName("docs", "pages.get");
    const underscored = mcpToolName("docs", "pages_get");
    expect(dotted).toMatch(/^mcp__docs__pages_get_[0-9a-f]{8}$/);
    expect(underscored).toBe("mcp__docs__pages_get");
    expect(mcpToolName("docs", "ünïcode tool/v2")).toMatch(PROVIDER_NAME);
    // The same tool gets the same name every time (the tool list is part of the prompt prefix).
    expect(mcpToolName("docs", "pages.get")).toBe(dotted);
  });

  it("are cut to 64 characters with a hash that keeps long names apart", () => {
    const long = "a".repeat(80);
    const first = mcpToolName("docs", `${long}_one`);
    const second = mcpToolName("docs", `${long}_two`);
    expect(first).toHaveLength(64);
    expect(first).toMatch(PROVIDER_NAME);
    expect(first).not.toBe(second);
  });

  it("are handed out once: a clash with a taken name gets the hashed form", () => {
    const namer = new ToolNamer(["exec_command", "mcp__a__b__c"]);
    // Server "a" with tool "b__c" spells the same as a taken name.
    const name = namer.nameFor("a", "b__c");
    expect(name).toMatch(/^mcp__a__b__c_[0-9a-f]{8}$/);
    expect(namer.nameFor("a__b", "c")).toMatch(/^mcp__a__b__c_[0-9a-f]{8}$/);
    expect(namer.nameFor("a__b", "c")).toBeUndefined();
    expect(namer.claim("mcp__x__y")).toBe(true);
    expect(namer.claim("mcp__x__y")).toBe(false);
  });
});

describe("MCP secrets", () => {
  it("are the env and header values, and the credential after a header's scheme; short values are left alone", () => {
    const values = mcpSecretValues([
      {
        name: "s",
        config: {
          transport: "stdio",
          command: "x",
          args: [],
          env: { API_TOKEN: "tok-0123456789", DEBUG: "1" },
          connectTimeoutMs: 10_000,
          permission: "auto",
        },
      },
      {
        name: "h",
        config: {
          transport: "http",
          url: "http://127.0.0.1:1/mcp",
          headers: { Authorization: "Bearer abcdefgh12345678" },
          connectTimeoutMs: 10_000,
          permission: "auto",
        },
      },
    ]);
    expect(values.sort()).toEqual(["Bearer abcdefgh12345678", "abcdefgh12345678", "tok-0123456789"].sort());
  });
});
