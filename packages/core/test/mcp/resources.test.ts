import type { McpServer } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  CATALOG_SERVER,
  call,
  collect,
  MODEL,
  mcpSetup,
  outputsById,
  RETRY_FAST,
  stdioServer,
} from "./support.js";

const start = cleanedUpAfterEach(mcpSetup);

function catalogServer(name: string, serverArgs: string[] = ["--resources"]): McpServer {
  return {
    name,
    config: {
      transport: "stdio",
      command: process.execPath,
      args: [CATALOG_SERVER, ...serverArgs],
      connectTimeoutMs: 20_000,
      permission: "auto",
    },
  } as McpServer;
}

/** Runs one task whose first model turn makes `calls`; returns the outputs by call id and the session's tools. */
async function runCalls(
  servers: McpServer[],
  calls: ReturnType<typeof call>[],
  options: { vision?: boolean } = {},
) {
  const script = calls.length > 0 ? [{ tool_calls: calls }, { text: "Done." }] : [{ text: "Done." }];
  const env = await start(script, servers, options);
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const yielded = await collect(session.run("Go.", { approve: allowAll }));
  const tools = session.tools.map((tool) => tool.name);
  await session.dispose();
  return { outputs: outputsById(yielded), tools, env };
}

describe("read_mcp_resource", () => {
  it("lists every page of a server's resources and its templates when no uri is given", async () => {
    const { outputs, tools } = await runCalls([catalogServer("notes")], [call("c1", "read_mcp_resource")]);
    expect(tools).toContain("read_mcp_resource");
    const out = outputs.get("c1")!;
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toContain('Resources of MCP server "notes":');
    // Five resources, listed two per page by the server: all pages are read.
    expect(out.output).toContain("- notes://readme  Read me (text/plain): The notes' readme.");
    for (const uri of ["notes://pixel", "notes://archive", "notes://long", "notes://last"]) {
      expect(out.output).toContain(`- ${uri}  `);
    }
    expect(out.output).toContain("- template notes://item/{id}  item: One item by id.");
  });

  it("reads a resource as numbered lines and continues a long one with offset, like read_file", async () => {
    const { outputs } = await runCalls(
      [catalogServer("notes")],
      [
        call("whole", "read_mcp_resource", { uri: "notes://readme" }),
        call("window", "read_mcp_resource", { server: "notes", uri: "notes://readme", offset: 2, limit: 3 }),
        call("past", "read_mcp_resource", { uri: "notes://readme", offset: 41 }),
      ],
    );
    const whole = outputs.get("whole")!;
    expect(whole.stop_reason).toBe("completed");
    expect(whole.output.split("\n")).toHaveLength(40);
    expect(whole.output.split("\n")[0]).toBe("     1\treadme line 1");
    const window = outputs.get("window")!;
    expect(window.output).toBe(
      "     2\treadme line 2\n     3\treadme line 3\n     4\treadme line 4\n[lines 2-4 of 40; continue with offset=5]",
    );
    expect(outputs.get("past")).toMatchObject({ stop_reason: "failed" });
    expect(outputs.get("past")!.output).toContain("offset 41 is past the end of notes://readme (40 lines)");
  });

  it("keeps a large resource within the output cap, with the continuation note intact", async () => {
    const { outputs } = await runCalls(
      [catalogServer("notes")],
      [call("long", "read_mcp_resource", { uri: "notes://long" })],
    );
    const out = outputs.get("long")!;
    // One line of 20,000 characters: cut like read_file cuts an overlong line, within the cap.
    expect(out.output.length).toBeLessThanOrEqual(16_000);
    expect(out.output).toContain("[… line truncated at 2000 chars]");
  });

  it("sends an image resource to a vision model and names a binary one in a note", async () => {
    const { outputs } = await runCalls(
      [catalogServer("notes")],
      [
        call("pixel", "read_mcp_resource", { uri: "notes://pixel" }),
        call("zip", "read_mcp_resource", { uri: "notes://archive" }),
      ],
      { vision: true },
    );
    expect(outputs.get("pixel")!.images?.[0]).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(outputs.get("zip")!.output).toContain(
      "[resource notes://archive (application/zip): 7 bytes of binary content left out]",
    );
  });

  it("fails with a clear reason for an unknown uri, an unknown server, and a missing server when two have resources", async () => {
    const { outputs } = await runCalls(
      [catalogServer("notes"), catalogServer("more")],
      [
        call("missing", "read_mcp_resource", { server: "notes", uri: "notes://nothing" }),
        call("which", "read_mcp_resource", { uri: "notes://readme" }),
        call("bad-server", "read_mcp_resource", { server: "nope" }),
        call("both", "read_mcp_resource"),
      ],
    );
    const missing = outputs.get("missing")!;
    expect(missing.stop_reason).toBe("failed");
    expect(missing.output).toContain('The MCP server "notes" could not read notes://nothing:');
    expect(missing.output).toContain("Resource not found: notes://nothing");
    expect(outputs.get("which")).toMatchObject({ stop_reason: "failed" });
    expect(outputs.get("which")!.output).toContain(
      "more than one MCP server has resources (notes, more): name one as server",
    );
    // The schema names the servers: anything else is refused before the tool runs.
    expect(outputs.get("bad-server")!.stop_reason).toBe("failed");
    expect(outputs.get("bad-server")!.output).toContain("server");
    const both = outputs.get("both")!;
    expect(both.output).toContain('Resources of MCP server "notes":');
    expect(both.output).toContain('Resources of MCP server "more":');
  });

  it("is not offered when no connected server has resources", async () => {
    const { tools } = await runCalls([stdioServer("docs"), catalogServer("plain", ["--tools", "2"])], []);
    expect(tools).toContain("mcp__plain__tool_1");
    expect(tools).not.toContain("read_mcp_resource");
  });
});

describe("resource links in MCP tool results", () => {
  it("reads a linked resource after the result, cuts a long one, and says why a link cannot be read", async () => {
    const { outputs } = await runCalls([catalogServer("notes")], [call("r", "mcp__notes__report")]);
    const out = outputs.get("r")!;
    expect(out.stop_reason).toBe("completed");
    const text = out.output;
    expect(text.startsWith("Report ready.\n[resource: notes://readme (readme) text/plain]\n")).toBe(true);
    expect(text).toContain("[linked resource notes://readme]\nreadme line 1\nreadme line 2\n");
    expect(text).toContain("readme line 40\n[linked resource notes://gone could not be read: ");
    expect(text).toContain("Resource not found: notes://gone]");
    expect(text).toContain("[linked resource notes://long]\nxxxx");
    expect(text).toContain(
      '[… cut at 8000 characters; read the rest with read_mcp_resource {server: "notes", uri: "notes://long", offset}]',
    );
  });

  it("reads at most five links of one result and leaves the rest as links", async () => {
    const { outputs } = await runCalls([catalogServer("notes")], [call("m", "mcp__notes__many_links")]);
    const text = outputs.get("m")!.output;
    for (let i = 1; i <= 7; i++)
      expect(text).toContain(`[resource: notes://item/${i} (item ${i}) text/plain]`);
    for (let i = 1; i <= 5; i++) expect(text).toContain(`[linked resource notes://item/${i}]\nitem ${i}`);
    expect(text).not.toContain("[linked resource notes://item/6]");
    expect(text).not.toContain("\nitem 6");
  });

  it("leaves links of a server without resources as they are", async () => {
    const { outputs } = await runCalls(
      [catalogServer("plain", ["--links-only"])],
      [call("p", "mcp__plain__report")],
    );
    const text = outputs.get("p")!.output;
    expect(text).toContain("[resource: notes://readme (readme) text/plain]");
    expect(text).not.toContain("[linked resource");
  });
});
