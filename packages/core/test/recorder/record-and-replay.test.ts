import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { loadCassette } from "../../src/models/cassette.js";
import { createAgent } from "../../src/sdk/agent.js";
import { collect, kind, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run", cmd },
});

/** A data root and workspace that share nothing with the recording: no project config, no key. */
async function freshReplayAgent() {
  const root = mkdtempSync(join(tmpdir(), "penguin-replay-"));
  folders.push(root);
  const workspaceDir = join(root, "workspace");
  mkdirSync(workspaceDir);
  const agent = await createAgent({ dataRoot: join(root, "data"), logger: { warn: () => {} } });
  return { agent, workspaceDir };
}

/** What a session did, without what differs between a live and a replayed run (times, ids of sessions). */
function behaviour(messages: OmniMessage[]) {
  return messages
    .filter((m) => m.type === "model_msg" && !kind(m).startsWith("partial_"))
    .map((m) => {
      const p = m.payload as Record<string, unknown>;
      switch (p.type) {
        case "tool_call":
          return ["tool_call", p.tool_call_id, p.name, p.arguments];
        case "tool_call_output":
          return ["tool_call_output", p.tool_call_id, p.output];
        case "thinking":
          return ["thinking", p.thinking];
        default:
          return [p.type, p.role, p.text];
      }
    });
}

const SECRET = "hunter2-very-secret";

describe("recording a live session and replaying it (fake-llm over HTTP, then replay: in a fresh workspace)", () => {
  it("replays the same tool calls, outputs, retries and final answer; the cassette is 0600, incremental and redacted", async () => {
    const env = await setup([
      {
        thinking: "I should create the file first.",
        text: "Creating the file.",
        tool_calls: [exec("printf 'hello from the tool' > out.txt && echo wrote", "call_write")],
      },
      { error: { status: 429, message: "slow down", retry_after: 0.01 } },
      {
        text: `Checking it (the password is ${SECRET}).`,
        tool_calls: [
          { id: "call_read", name: "read_file", arguments: '{"path": "out.txt"}' },
          exec("cat out.txt | wc -c", "call_count"),
        ],
      },
      { text: "The file says: hello from the tool." },
    ]);
    envs.push(env);
    const cassette = join(env.root, "cassettes", "session.yaml");
    const live = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      secrets: [SECRET],
      record: cassette,
    });
    let turnsAfterFirstRequest = -1;
    const liveRun = await collect(live.run("Write and check out.txt.", { approve: allowAll }), (m) => {
      // Written after each request: the first turn is on disk while its tool runs.
      if (kind(m) === "tool_call_output" && turnsAfterFirstRequest < 0)
        turnsAfterFirstRequest = loadCassette(cassette).turns.length;
    });
    await live.dispose();
    expect(liveRun.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(turnsAfterFirstRequest).toBe(1);

    expect(statSync(cassette).mode & 0o777).toBe(0o600);
    const text = readFileSync(cassette, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("sk-test");
    const recorded = loadCassette(cassette);
    expect(recorded.turns).toHaveLength(4);
    expect(recorded.turns[0]).toMatchObject({
      thinking: "I should create the file first.",
      text: "Creating the file.",
      tool_calls: [{ id: "call_write", name: "exec_command" }],
    });
    expect(recorded.turns[0].usage?.output_tokens).toBeGreaterThan(0);
    expect(recorded.turns[1]).toEqual({ error: { status: 429, message: "slow down", retry_after: 0.01 } });
    // Arguments exactly as streamed: the spaced JSON stays a string, compact JSON may be a mapping.
    expect(recorded.turns[2].tool_calls?.[0]).toEqual({
      id: "call_read",
      name: "read_file",
      arguments: '{"path": "out.txt"}',
    });
    expect(recorded.turns[2].text).toBe(`Checking it (the password is ${REDACTED_MARKER}).`);

    // Replay in a fresh data root and workspace: no key, no HTTP, real tools.
    const replay = await freshReplayAgent();
    const replayed = await replay.agent.createSession({
      workspaceDir: replay.workspaceDir,
      model: `replay:${cassette}`,
      retry: RETRY_FAST,
    });
    const replayRun = await collect(replayed.run("Write and check out.txt.", { approve: allowAll }));
    await replayed.dispose();

    expect(replayRun.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(readFileSync(join(replay.workspaceDir, "out.txt"), "utf8")).toBe("hello from the tool");
    const ends = (run: OmniMessage[]) =>
      run
        .filter((m) => kind(m) === "request_end")
        .map((m) => {
          const p = m.payload as {
            status: string;
            attempt: number;
            error_message?: string;
            retry_in_ms?: number;
          };
          return [p.status, p.attempt, p.error_message, p.retry_in_ms];
        });
    // The recorded 429 comes back as the same failure and the same retry.
    expect(ends(replayRun)).toEqual(ends(liveRun));
    expect(ends(replayRun)[1]).toEqual(["failed", 1, "HTTP 429: slow down", 10]);
    // Same messages in the same order, except the recorded text that had the secret in it.
    const redact = (rows: unknown[][]) =>
      rows.map((row) =>
        row.map((cell) => (typeof cell === "string" ? cell.replace(SECRET, REDACTED_MARKER) : cell)),
      );
    expect(behaviour(replayRun)).toEqual(redact(behaviour(liveRun)));
    expect(
      replayRun.filter((m) => kind(m) === "tool_call").map((m) => (m.payload as { name: string }).name),
    ).toEqual(["exec_command", "read_file", "exec_command"]);
    const final = replayRun.filter(
      (m) => kind(m) === "text" && (m.payload as { role: string }).role === "assistant",
    );
    expect(final.at(-1)?.payload).toMatchObject({ text: "The file says: hello from the tool." });
    // The replayed trace names the cassette as its model.
    expect(traceRecords(replayed.tracePath)[0].payload).toMatchObject({
      provider: "replay",
      model_id: cassette,
    });
  });

  it("a stream cut mid-answer is recorded with what it delivered and replays as the same retried turn", async () => {
    const env = await setup([
      {
        text: "A first attempt that breaks off somewhere in the middle.",
        chunk_size: 8,
        cut: { after_chunks: 3 },
      },
      { text: "Second attempt, complete." },
    ]);
    envs.push(env);
    const cassette = join(env.root, "cut.yaml");
    const live = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      record: cassette,
    });
    const liveRun = await collect(live.run("Answer.", { approve: allowAll }));
    await live.dispose();

    const [cut, done] = loadCassette(cassette).turns;
    expect(cut.text).toBe("A first attempt that bre");
    expect(cut.cut).toBeDefined();
    expect(cut.label).toMatch(/^recorded failed: /);
    expect(done).toMatchObject({ text: "Second attempt, complete." });

    const replay = await freshReplayAgent();
    const replayed = await replay.agent.createSession({
      workspaceDir: replay.workspaceDir,
      model: `replay:${cassette}`,
      retry: RETRY_FAST,
    });
    const replayRun = await collect(replayed.run("Answer.", { approve: allowAll }));
    await replayed.dispose();
    const statuses = (run: OmniMessage[]) =>
      run.filter((m) => kind(m) === "request_end").map((m) => (m.payload as { status: string }).status);
    expect(statuses(replayRun)).toEqual(["failed", "completed"]);
    expect(statuses(liveRun)).toEqual(["failed", "completed"]);
    // The partial answer reaches the retry's [turn_retried] block in both runs.
    const retried = (run: OmniMessage[]) =>
      run
        .filter((m) => kind(m) === "text" && (m.payload as { sender?: string }).sender === "harness")
        .map((m) => (m.payload as { text: string }).text);
    expect(retried(liveRun)[0]).toContain("assistant: A first attempt that bre");
    expect(retried(replayRun)[0]).toContain("assistant: A first attempt that bre");
    expect(behaviour(replayRun).at(-1)).toEqual(["text", "assistant", "Second attempt, complete."]);
  });

  it("a cassette path that cannot be written stops session creation with the reason", async () => {
    const env = await setup([{ text: "never asked" }]);
    envs.push(env);
    const blocker = join(env.root, "not-a-folder");
    await import("node:fs/promises").then((fs) => fs.writeFile(blocker, "a file"));
    await expect(
      env.agent.createSession({
        workspaceDir: env.workspaceDir,
        model: MODEL,
        record: join(blocker, "c.yaml"),
      }),
    ).rejects.toThrow(/ENOTDIR|EEXIST/);
    expect(env.llm.requests).toHaveLength(0);
  });
});
