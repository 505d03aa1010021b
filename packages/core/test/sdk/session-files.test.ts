import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPayload } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { FileAccess } from "../../src/environment/file-access.js";
import { collect, MODEL, outputOf, RETRY_FAST, runSubagent, setup } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// The session option `files`: a session's file tools (and its subagents') read and write through
// it, against a real session and the fake model server.

const start = cleanedUpAfterEach(setup);

/** An editor's buffers: what it has open answers reads, and every write lands there. */
function buffers(initial: Record<string, string>): FileAccess & { text: Map<string, string> } {
  const text = new Map(Object.entries(initial));
  return {
    text,
    async readText(path) {
      return text.get(path) ?? readFileSync(path, "utf8");
    },
    async writeText(path, content) {
      text.set(path, content);
    },
  };
}

describe("createSession({ files })", () => {
  it("the session and its subagent read the buffer, and a write goes to it, not the disk", async () => {
    const env = await start([
      {
        tool_calls: [
          { id: "call_read", name: "read_file", arguments: { file_path: "notes.txt" } },
          runSubagent("call_run", { prompt: "Read notes.txt and rewrite it." }),
        ],
      },
      { tool_calls: [{ id: "child_read", name: "read_file", arguments: { file_path: "notes.txt" } }] },
      {
        tool_calls: [
          { id: "child_write", name: "write_file", arguments: { file_path: "new.txt", content: "n\n" } },
        ],
      },
      { text: "The child saw it." },
      { text: "Both saw the buffer." },
    ]);
    const notes = join(env.workspaceDir, "notes.txt");
    writeFileSync(notes, "saved\n");
    const files = buffers({ [notes]: "unsaved\n" });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      files,
    });
    const yielded = await collect(session.run("Look at the notes.", { approve: allowAll }));
    expect(outputOf(yielded, "call_read").output).toContain("unsaved");
    const childRead = yielded.find(
      (m) => isPayload(m, "tool_call_output") && m.payload.tool_call_id === "child_read",
    );
    expect(childRead && isPayload(childRead, "tool_call_output") && childRead.payload.output).toContain(
      "unsaved",
    );
    expect(files.text.get(join(env.workspaceDir, "new.txt"))).toBe("n\n");
    expect(existsSync(join(env.workspaceDir, "new.txt"))).toBe(false);
    expect(readFileSync(notes, "utf8")).toBe("saved\n");
    await session.dispose();
  });
});
