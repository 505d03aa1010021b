import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { scratchpadRoot, systemConfigFile, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { DANGLING_COMPACTION_MESSAGE } from "../../src/sdk/conversation-state.js";
import { chatMessages, collect, MODEL, setup } from "../sdk/fixtures.js";
import { COMPACT_PROMPT, contentText, eventsOf, payloadType, printTurn, summaryReplies } from "./support.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "..", "resume", "child-session.mjs");
const BIG_USAGE = { input_tokens: 5_000, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0 };

/** Runs one task in a real node process; resolves once a printed message passes `until`. */
function spawnUntil(env: Env, prompt: string, until: (payload: Record<string, unknown>) => boolean) {
  const child = spawn(process.execPath, [CHILD, env.dataRoot, env.workspaceDir, MODEL, prompt], {
    stdio: ["ignore", "pipe", "pipe"],
    // The test's temp folder as HOME: no dotfiles of the machine reach the session's shells.
    env: { ...process.env, HOME: env.root },
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  let sessionId = "";
  const reached = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (text) => {
      const line = JSON.parse(text) as { session_id?: string; payload?: Record<string, unknown> };
      if (line.session_id) sessionId = line.session_id;
      if (line.payload && until(line.payload)) resolve(sessionId);
    });
    child.once("exit", () => reject(new Error(`the session process ended first; stderr:\n${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async () => {
    child.kill("SIGKILL");
    await exited;
    expect(child.signalCode).toBe("SIGKILL");
  };
  return { reached, kill };
}

describe("SIGKILL during a compaction, then resume", () => {
  it("closes the dangling compaction as failed, keeps the context from before it, and compacts again", async () => {
    const summaries = summaryReplies(
      [
        {
          text: "[summary]Half a summary that never ends",
          chunk_size: 4,
          stall: { after_chunks: 2 },
        },
      ],
      { text: "[summary]The user asked to print 100 x; done.[/summary]" },
    );
    const env = await setup(
      [{ ...printTurn("call_a", 100), usage: BIG_USAGE }, { text: "Resumed and done." }],
      {
        pick: summaries.pick,
      },
    );
    envs.push(env);
    const configFile = systemConfigFile(env.dataRoot, "default");
    mkdirSync(dirname(configFile), { recursive: true });
    writeFileSync(configFile, `compaction:\n  max_context_length: 4000\n  prompt: "${COMPACT_PROMPT}"\n`);

    const run = spawnUntil(env, "Print 100 x.", (p) => p.type === "partial_text" && p.text === "[sum");
    const sessionId = await run.reached;
    await run.kill();
    expect(env.llm.requests).toHaveLength(2);

    const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
    const crashed = rebuildContext(readSession(location, sessionId).records);
    expect(crashed.danglingCompaction).toBe(true);
    expect(crashed.messages.map((m) => m.payload.type)).toEqual([
      "text",
      "text",
      "tool_call",
      "tool_call_output",
    ]);

    // An agent that reads the system_config.yaml written above, as the killed process did.
    const agent = await createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
    const resumed = await agent.resumeSession(sessionId);
    const messages = await collect(resumed.run("Continue.", { approve: allowAll }));
    await resumed.dispose();
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(eventsOf(messages, "compaction_end")).toEqual([
      expect.objectContaining({
        status: "failed",
        reason: "context",
        error_message: DANGLING_COMPACTION_MESSAGE,
      }),
      expect.objectContaining({ status: "completed", reason: "context" }),
    ]);
    expect(payloadType(messages[0]!)).toBe("compaction_end");
    // Nothing re-ran: the print happened once, before the crash.
    expect(eventsOf(messages, "tool_call")).toEqual([]);
    // The compaction request after the resume holds the context from before the crash, and "Continue.".
    const retried = chatMessages(env.llm, 2);
    expect(retried.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(contentText(retried.at(-1))).toMatch(/^Continue\.\n\nCOMPACTION REQUEST/);
    const last = chatMessages(env.llm, 3);
    // The summary, then the user's message of the task in progress.
    expect(contentText(last[1])).toMatch(/print 100 x; done\.\n\[\/context_summary\]\n\nContinue\.$/);

    const after = rebuildContext(readSession(location, sessionId).records);
    expect(after.danglingCompaction).toBe(false);
    expect((after.messages[0]!.payload as { text: string }).text).toMatch(/^\[context_summary\]/);
  });
});
