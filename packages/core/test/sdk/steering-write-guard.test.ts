import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, payloadsOf, stack, toolMessage } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// The write guard accepts "a read earlier in the same task (since the last user message)", and a
// steering message is a user message from the moment it enters the conversation: a read before
// it no longer lets an edit through. Through the SDK, against fake-llm over HTTP.

const start = cleanedUpAfterEach(stack);

const read = { id: "r1", name: "read_file", arguments: { file_path: "notes.txt" } };
const edit = {
  id: "e1",
  name: "edit_file",
  arguments: { file_path: "notes.txt", old_string: "draft", new_string: "final" },
};
const script = [{ tool_calls: [read] }, { tool_calls: [edit] }, { text: "done" }];

async function readThenEdit(steer: boolean) {
  const env = await start(script, { tools: { writeGuard: true } });
  const file = join(env.workspaceDir, "notes.txt");
  writeFileSync(file, "a draft\n");
  const session = await env.session();
  let steered = false;
  const messages = await collect(session.run("Tidy the notes.", { approve: allowAll }), (m) => {
    // Queued while the read is about to run; delivered with the next request, after the read.
    const payload = m.payload as { type?: string; tool_call_id?: string };
    if (steer && !steered && payload.type === "approval_decision" && payload.tool_call_id === "r1")
      steered = session.steer("keep it short");
  });
  await session.dispose();
  return { env, file, messages, steered };
}

describe("steering and the write guard", () => {
  it("without steering, an edit after a read of the same task goes through", async () => {
    const { env, file } = await readThenEdit(false);
    expect(toolMessage(env, 2, "e1")).not.toContain("has not been read");
    expect(readFileSync(file, "utf8")).toBe("a final\n");
  });

  it("a steering message delivered after the read makes the edit need a new read", async () => {
    const { env, file, messages, steered } = await readThenEdit(true);
    expect(steered).toBe(true);
    // The steering reached the second request, after the read's output.
    const second = chatMessages(env.llm, 1);
    expect(String(second.at(-1)?.content)).toBe("[user_steering]\nkeep it short\n[/user_steering]");
    expect(toolMessage(env, 1, "r1")).toContain("a draft");

    const edited = payloadsOf(messages, "tool_call_output").find((p) => p.tool_call_id === "e1");
    expect(edited?.stop_reason).toBe("failed");
    expect(toolMessage(env, 2, "e1")).toContain(
      "It has not been read in this task: read it with read_file first",
    );
    expect(readFileSync(file, "utf8")).toBe("a draft\n");
  });
});
