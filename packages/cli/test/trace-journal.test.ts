import {
  activityResolved,
  approvalDecision,
  requestBegin,
  requestEnd,
  sessionMeta,
  toolCall,
  toolDispatched,
  toolEffect,
  userText,
} from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { describe, expect, test } from "vitest";
import { tempDir } from "./helpers.js";
import { cli, locationOf } from "./trace-fixtures.js";

// `penguin trace` shows the journal of each call: its dispatch, the effect it announced (each file
// with its hash before and after) and a decision taken on it after a crash.

const BEFORE = "0123456789ab".padEnd(64, "0");
const AFTER = "fedcba987654".padEnd(64, "f");

function writeSession(dataRoot: string, id: string): void {
  const writer = TraceWriter.create(locationOf(dataRoot), id);
  writer.append(
    sessionMeta({
      session_id: id,
      provider: "openai",
      model_id: "gpt-test",
      system_prompt: "x",
      workspace: "/srv/ws",
    }),
  );
  writer.append(userText("move the notes"));
  writer.append(requestBegin());
  writer.append(toolCall("move_path", { source: "notes.md", destination: "old/notes.md" }, "call_mv"));
  writer.append(toolCall("list_files", { path: "." }, "call_ls"));
  writer.append(requestEnd("completed"));
  writer.append(approvalDecision("call_mv", "allow"));
  writer.append(toolDispatched({ tool_call_id: "call_mv", name: "move_path", read_only: false }));
  writer.append(
    toolEffect({
      tool_call_id: "call_mv",
      files: [
        { path: "/srv/ws/notes.md", before_sha256: BEFORE, after_sha256: null },
        { path: "/srv/ws/old/notes.md", before_sha256: null, after_sha256: AFTER },
      ],
    }),
  );
  writer.append(approvalDecision("call_ls", "allow"));
  writer.append(toolDispatched({ tool_call_id: "call_ls", name: "list_files", read_only: true }));
  writer.append(
    activityResolved({
      tool_call_id: "call_mv",
      decision: "retry",
      evidence: "notes.md is still in place",
      by: "agent",
      verified:
        "not applied: /srv/ws/notes.md, /srv/ws/old/notes.md still have the hash from before the call",
    }),
  );
  writer.close();
}

describe("penguin trace shows the journal", () => {
  test("dispatch, effect with its files and hashes, and the decision with who took it and the evidence", async () => {
    const dataRoot = tempDir("trace-journal");
    writeSession(dataRoot, "crashed");
    const r = await cli(["trace", "crashed", "--data-dir", dataRoot]);
    expect(r.exitCode).toBe(0);
    const order = [
      "▸ dispatched move_path [call_mv]",
      "✎ effect move_path [call_mv]",
      "/srv/ws/notes.md  0123456789ab → removed",
      "/srv/ws/old/notes.md  absent → fedcba987654",
      "▸ dispatched list_files [call_ls] (read-only)",
      "⚑ resolved move_path [call_mv]: retry by agent",
      "evidence: notes.md is still in place",
      "Penguin's check: not applied: /srv/ws/notes.md",
    ];
    let at = -1;
    for (const piece of order) {
      const found = r.stdout.indexOf(piece, at + 1);
      expect(found, `missing or out of order: ${piece}\n${r.stdout}`).toBeGreaterThan(at);
      at = found;
    }
    // Whole hashes with --full.
    const full = await cli(["trace", "crashed", "--full", "--data-dir", dataRoot]);
    expect(full.stdout).toContain(`${BEFORE} → removed`);
  });
});
