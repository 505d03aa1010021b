import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { collect, MODEL, mcpSetup, RETRY_FAST, stdioServer, traceRecords } from "../mcp/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// A configured secret (here an MCP server's env value) that the model types into a call's
// arguments: the call runs with it, the trace and the stream never hold it.

const start = cleanedUpAfterEach(mcpSetup);

const token = "tok-0123456789abcdef";

const argumentsOf = (messages: readonly OmniMessage[], type: "tool_call" | "partial_tool_call") =>
  messages
    .filter((m) => m.type === "model_msg" && m.payload.type === type)
    .map((m) => (m.payload as { arguments: string }).arguments);

describe("a configured secret in the model's own tool-call arguments", () => {
  it("is redacted in the trace and the stream, while the call runs with the real value", async () => {
    const env = await start(
      [
        {
          // Small chunks: the secret straddles several partial_tool_call deltas.
          chunk_size: 5,
          tool_calls: [
            {
              id: "c1",
              name: "exec_command",
              arguments: { description: "save the token", cmd: `printf %s '${token}' > ../typed.txt` },
            },
          ],
        },
        { text: "Saved." },
      ],
      [stdioServer("docs", { env: { SECRET_TOKEN: token } })],
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Save it.", { approve: allowAll }));
    await session.dispose();

    // The command ran as the model wrote it.
    expect(readFileSync(join(env.root, "typed.txt"), "utf8")).toBe(token);
    const traced = traceRecords(session.tracePath);
    expect(JSON.stringify(traced)).not.toContain(token);
    expect(JSON.stringify(yielded)).not.toContain(token);
    const [complete] = argumentsOf(traced, "tool_call");
    expect(JSON.parse(complete ?? "{}")).toMatchObject({
      cmd: `printf %s '${REDACTED_MARKER}' > ../typed.txt`,
    });
    // The streamed deltas still concatenate to exactly the complete (redacted) arguments.
    expect(argumentsOf(yielded, "partial_tool_call").join("")).toBe(argumentsOf(yielded, "tool_call")[0]);
    expect(argumentsOf(yielded, "tool_call")[0]).toBe(complete);
  });
});
