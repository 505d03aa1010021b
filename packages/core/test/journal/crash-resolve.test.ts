import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OmniMessage } from "@penguin/protocol";
import { type SystemConfigInput, scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, uncertainCalls } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, setup } from "../sdk/fixtures.js";

// Work that survives a crash, with a real SIGKILL: a session process dies in the middle of a file
// tool, the file is checked by its hash, the resumed model is told about the uncertain call in
// one notice, and the decision (by the agent's tool or the user's session.resolve) is recorded.

const CONFIG: SystemConfigInput = { tools: { preset: "extended", writeGuard: false } };
const CHILD = join(dirname(fileURLToPath(import.meta.url)), "child-crash.mjs");

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** Runs one task in a child process that SIGKILLs itself at `killAt`; resolves with its session id. */
async function crashedSession(env: Env, killAt: "after-effect" | "before-output"): Promise<string> {
  const child = spawn(
    process.execPath,
    [CHILD, env.dataRoot, env.workspaceDir, MODEL, "Change the file.", killAt, JSON.stringify(CONFIG)],
    // The test's temp folder as HOME: no dotfiles of the machine reach the session's shells.
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: env.root } },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, sig) => resolve(sig)),
  );
  expect(signal, stderr).toBe("SIGKILL");
  return (JSON.parse(stdout.split("\n")[0] ?? "{}") as { session_id: string }).session_id;
}

function recordsOf(env: Env, sessionId: string): OmniMessage[] {
  return readSession(
    { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) },
    sessionId,
  ).records;
}

const resolvedRecords = (records: OmniMessage[]) =>
  records.map((r) => r.payload as Record<string, unknown>).filter((p) => p.type === "activity_resolved");

const writeCall = {
  id: "c_write",
  name: "write_file",
  arguments: { file_path: "a.txt", content: "after\n" },
};
const resolveCall = (decision: string, evidence: string, id = "c_write") => ({
  id: `c_resolve_${id}`,
  name: "resolve_execution_activity",
  arguments: { tool_call_id: id, decision, evidence },
});

describe("a session killed (SIGKILL) during a file tool", () => {
  it("during write_file, after the write: the file has the after-hash, the resumed model is told once, and accepts", async () => {
    const env = await setup(
      [
        { tool_calls: [writeCall] },
        {
          tool_calls: [
            resolveCall("accept", "a.txt already holds the new content.", "c_unknown"),
            resolveCall("accept", "a.txt already holds the new content."),
          ],
        },
        { text: "Resolved." },
      ],
      { config: CONFIG },
    );
    envs.push(env);
    writeFileSync(join(env.workspaceDir, "a.txt"), "before\n");
    const sessionId = await crashedSession(env, "before-output");

    // The write happened; its result never reached the trace: the call is uncertain.
    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("after\n");
    const [uncertain] = uncertainCalls(recordsOf(env, sessionId));
    expect(uncertain).toMatchObject({ toolCallId: "c_write", name: "write_file" });
    expect(uncertain?.files).toEqual([
      { path: join(env.workspaceDir, "a.txt"), before_sha256: sha("before\n"), after_sha256: sha("after\n") },
    ]);

    const resumed = await env.agent.resumeSession(sessionId);
    const listed = await resumed.uncertainSteps();
    expect(
      listed.ok && listed.steps.map((s) => [s.entry.toolCallId, s.check.verdict, s.check.suggestion]),
    ).toEqual([["c_write", "applied", "accept"]]);
    const messages = await collect(resumed.run("Go on.", { approve: allowAll }));
    await resumed.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    // The first request after the resume carries one compact notice, not the journal.
    const sent = chatMessages(env.llm, 1);
    const notices = sent.filter((m) => m.role === "user" && textOf(m.content).includes("[uncertain_steps]"));
    expect(notices).toHaveLength(1);
    const notice = textOf(notices[0]?.content);
    expect(notice.split("\n").length).toBeLessThanOrEqual(8);
    expect(notice).toContain("write_file (c_write)");
    expect(notice).toContain("applied:");
    expect(notice).toContain("resolve_execution_activity");
    expect(notice).not.toContain("tool_dispatched");
    // The interrupted call is answered once (no dangling call in the request).
    expect(sent.filter((m) => m.role === "tool" && m.tool_call_id === "c_write")).toHaveLength(1);
    // The next request (after the model's decision) does not repeat it.
    expect(
      chatMessages(env.llm, 2).filter((m) => textOf(m.content).includes("[uncertain_steps]")),
    ).toHaveLength(1);

    const outputs = Object.fromEntries(
      messages
        .map(
          (m) => m.payload as { type: string; tool_call_id?: string; output?: string; stop_reason?: string },
        )
        .filter((p) => p.type === "tool_call_output")
        .map((p) => [p.tool_call_id, p]),
    );
    expect(outputs.c_resolve_c_unknown?.stop_reason).toBe("failed");
    expect(outputs.c_resolve_c_unknown?.output).toContain("No tool call c_unknown in this session");
    expect(outputs.c_resolve_c_write?.stop_reason).toBe("completed");
    expect(outputs.c_resolve_c_write?.output).toContain("Recorded: accept for write_file (c_write).");

    const records = recordsOf(env, sessionId);
    expect(resolvedRecords(records)).toEqual([
      {
        type: "activity_resolved",
        tool_call_id: "c_write",
        decision: "accept",
        evidence: "a.txt already holds the new content.",
        by: "agent",
        verified: expect.stringMatching(/^applied: .*a\.txt has the hash the call would give$/),
      },
    ]);
    expect(uncertainCalls(records)).toEqual([]);
  });

  it("during write_file, before the write: the file has the before-hash, and the model's decision is retry", async () => {
    const env = await setup(
      [
        { tool_calls: [writeCall] },
        { tool_calls: [resolveCall("retry", "a.txt still holds the old content.")] },
        { tool_calls: [{ ...writeCall, id: "c_write_again" }] },
        { text: "Written." },
      ],
      { config: CONFIG },
    );
    envs.push(env);
    writeFileSync(join(env.workspaceDir, "a.txt"), "before\n");
    const sessionId = await crashedSession(env, "after-effect");

    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("before\n");
    expect(uncertainCalls(recordsOf(env, sessionId)).map((e) => e.toolCallId)).toEqual(["c_write"]);

    const resumed = await env.agent.resumeSession(sessionId);
    await collect(resumed.run("Go on.", { approve: allowAll }));
    await resumed.dispose();
    const notice = textOf(
      chatMessages(env.llm, 1).find((m) => textOf(m.content).includes("[uncertain_steps]"))?.content,
    );
    expect(notice).toContain("not applied:");
    expect(resolvedRecords(recordsOf(env, sessionId))).toMatchObject([
      {
        tool_call_id: "c_write",
        decision: "retry",
        by: "agent",
        verified: expect.stringMatching(/^not applied: /),
      },
    ]);
    // Nothing re-ran the call; the model did, with a new call.
    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("after\n");
  });

  it("during apply_patch: every file still has its before-hash, and the user resolves it with session.resolve", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: one.txt",
      "@@",
      "-one",
      "+ONE",
      "*** Add File: two.txt",
      "+two",
      "*** End Patch",
    ].join("\n");
    const env = await setup(
      [{ tool_calls: [{ id: "c_patch", name: "apply_patch", arguments: { patch } }] }],
      {
        config: CONFIG,
      },
    );
    envs.push(env);
    writeFileSync(join(env.workspaceDir, "one.txt"), "one\n");
    const sessionId = await crashedSession(env, "after-effect");

    const resumed = await env.agent.resumeSession(sessionId);
    const listed = await resumed.uncertainSteps();
    expect(listed.ok).toBe(true);
    const [step] = listed.ok ? listed.steps : [];
    expect(step?.entry.files.map((f) => f.path).sort()).toEqual(
      [join(env.workspaceDir, "one.txt"), join(env.workspaceDir, "two.txt")].sort(),
    );
    expect(step?.check).toMatchObject({ verdict: "not applied", suggestion: "retry" });

    // Refused: no evidence, an unknown call, a call that is not uncertain.
    expect(await resumed.resolve({ toolCallId: "c_patch", decision: "retry", evidence: "  " })).toMatchObject(
      {
        ok: false,
        message: expect.stringContaining("evidence is empty"),
      },
    );
    expect(await resumed.resolve({ toolCallId: "nope", decision: "retry", evidence: "x" })).toMatchObject({
      ok: false,
      message: expect.stringContaining("The uncertain steps of this session: c_patch (apply_patch)."),
    });
    const outcome = await resumed.resolve({
      toolCallId: "c_patch",
      decision: "retry",
      evidence: "one.txt unchanged, two.txt absent.",
    });
    expect(outcome).toMatchObject({ ok: true, resolution: { decision: "retry", by: "user" } });
    await resumed.dispose();

    expect(resolvedRecords(recordsOf(env, sessionId))).toMatchObject([
      {
        tool_call_id: "c_patch",
        decision: "retry",
        by: "user",
        evidence: "one.txt unchanged, two.txt absent.",
      },
    ]);
    const again = await env.agent.resumeSession(sessionId);
    expect(await again.uncertainSteps()).toEqual({ ok: true, steps: [] });
    await again.dispose();
  });
});
