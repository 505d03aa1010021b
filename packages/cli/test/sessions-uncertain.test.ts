import {
  activityResolved,
  approvalDecision,
  requestBegin,
  requestEnd,
  sessionMeta,
  toolCall,
  toolCallOutput,
  toolDispatched,
  toolEffect,
  userText,
} from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { describe, expect, test } from "vitest";
import { tempDir } from "./helpers.js";
import { cli, locationOf } from "./trace-fixtures.js";

// A crash left calls started without results: `penguin sessions show` names them (with the files
// they were about to change) until a decision is recorded, and then shows the decision.

const BEFORE = "0".repeat(64);
const AFTER = "f".repeat(64);

function writeCrashedSession(dataRoot: string, id: string, resolved: boolean): void {
  const writer = TraceWriter.create(locationOf(dataRoot), id);
  writer.append(
    sessionMeta({
      session_id: id,
      provider: "openai",
      model_id: "gpt-test",
      system_prompt: "You are a test.",
      workspace: "/srv/ws",
    }),
  );
  writer.append(userText("write the notes and list the folder"));
  writer.append(requestBegin());
  writer.append(toolCall("write_file", { file_path: "/srv/ws/notes.md", content: "new notes" }, "call_w"));
  writer.append(toolCall("list_files", { path: "." }, "call_r"));
  writer.append(requestEnd("completed"));
  writer.append(approvalDecision("call_w", "allow"));
  writer.append(toolDispatched({ tool_call_id: "call_w", name: "write_file", read_only: false }));
  writer.append(
    toolEffect({
      tool_call_id: "call_w",
      files: [{ path: "/srv/ws/notes.md", before_sha256: BEFORE, after_sha256: AFTER }],
    }),
  );
  writer.append(approvalDecision("call_r", "allow"));
  writer.append(toolDispatched({ tool_call_id: "call_r", name: "list_files", read_only: true }));
  writer.append(toolCall("exec_command", { cmd: "true" }, "call_done"));
  writer.append(toolCallOutput("call_done", "[exit code: 0]"));
  if (resolved) {
    writer.append(
      activityResolved({
        tool_call_id: "call_w",
        decision: "accept",
        evidence: "notes.md has the new content",
        by: "user",
      }),
    );
  }
  writer.close();
}

describe("penguin sessions show after a crash", () => {
  test("names the uncertain call and the file it was changing; a read-only call is not uncertain", async () => {
    const dataRoot = tempDir("uncertain");
    writeCrashedSession(dataRoot, "crashed", false);
    const r = await cli(["sessions", "show", "crashed", "--data-dir", dataRoot]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/uncertain steps/);
    expect(r.stdout).toMatch(/call_w write_file .*notes\.md/);
    expect(r.stdout).toMatch(/\/srv\/ws\/notes\.md: 000000000000 → ffffffffffff/);
    // Penguin's check: the file has neither hash (it does not exist here), so no decision is suggested.
    expect(r.stdout).toMatch(
      /Penguin's check: changed since: \/srv\/ws\/notes\.md has neither the hash before nor the hash after$/m,
    );
    expect(r.stdout).not.toMatch(/call_r/);
    expect(r.stdout).not.toMatch(/resolved steps/);

    const json = await cli(["sessions", "show", "crashed", "--json", "--data-dir", dataRoot]);
    const parsed = JSON.parse(json.stdout) as {
      uncertain: { toolCallId: string; check: { verdict: string; suggestion?: string } }[];
      resolved: unknown[];
      processes: unknown[];
    };
    expect(parsed.uncertain.map((entry) => entry.toolCallId)).toEqual(["call_w"]);
    expect(parsed.uncertain[0]?.check).toMatchObject({ toolCallId: "call_w", verdict: "changed since" });
    expect(parsed.uncertain[0]?.check.suggestion).toBeUndefined();
    expect(parsed.processes).toEqual([]);
    expect(parsed.resolved).toEqual([]);
  });

  test("shows the decision instead once the call is resolved", async () => {
    const dataRoot = tempDir("resolved");
    writeCrashedSession(dataRoot, "crashed", true);
    const r = await cli(["sessions", "show", "crashed", "--data-dir", dataRoot]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(/uncertain steps/);
    expect(r.stdout).toMatch(
      /resolved steps\n\s+call_w write_file: accept by user: notes\.md has the new content/,
    );
  });
});
