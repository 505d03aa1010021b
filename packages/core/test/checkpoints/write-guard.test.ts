import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { call, writeTree } from "./support.js";

// A revert and the write guard: the guard must not take what the model read before the revert
// for what the file holds now. After a revert, an edit of a restored file is refused until the
// file has been read again, and then goes through.

const GUARDED = { tools: { preset: "extended" as const, writeGuard: true } };
const start = cleanedUpAfterEach((script: Parameters<typeof setup>[0]) => setup(script, { config: GUARDED }));

const edit = (id: string, from: string, to: string) =>
  call(id, "edit_file", { file_path: "a.txt", old_string: from, new_string: to });

describe("a revert and the write guard", () => {
  it("a restored file must be read again before the next edit", async () => {
    const env = await start([
      // Task 1: read, then edit.
      { tool_calls: [call("r1", "read_file", { file_path: "a.txt" })] },
      { tool_calls: [edit("e1", "two", "TWO")] },
      { text: "Edited." },
      // Task 2, after the revert: an edit straight away, then a read and the edit.
      { tool_calls: [edit("e2", "two", "2")] },
      { tool_calls: [call("r2", "read_file", { file_path: "a.txt" })] },
      { tool_calls: [edit("e3", "two", "2")] },
      { text: "Edited again." },
    ]);
    writeTree(env.workspaceDir, { "a.txt": "one\ntwo\nthree\n" });
    const file = join(env.workspaceDir, "a.txt");
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Edit a.txt.", { approve: allowAll }));
    expect(readFileSync(file, "utf8")).toBe("one\nTWO\nthree\n");

    const outcome = await session.revert(1);
    expect(outcome?.restored).toEqual([file]);
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\nthree\n");

    await collect(session.run("Edit it again.", { approve: allowAll }));
    // The first edit of task 2 was refused (the file is as the revert left it, unread), the
    // second, after the read, went through.
    const refused = chatMessages(env.llm, 4).find((m) => m.tool_call_id === "e2");
    expect(String(refused?.content)).toContain("has not been read in this task");
    expect(readFileSync(file, "utf8")).toBe("one\n2\nthree\n");
    await session.dispose();
  });
});
