import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { allowAll, createAgent, type Session } from "@penguin/core";
import type { FakeLlmScript } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import type { Benchmark, BenchOptions } from "../benchmark.js";
import { FAKE_MODEL, startFakeLlmProcess } from "../fake-model.js";
import { collectGarbage, median, percentile } from "../measure.js";
import type { BenchRow } from "../table.js";
import { makeBenchDirs } from "../workdir.js";

// Agents that work together, through the SDK with real sessions on zero-latency fake models
// (fake-llm in child processes, one for the root and one for its children):
// (a) a message round trip root → child → root: the child waits for messages and answers each at
//     once; the time from the root's send (its `message_sent`) to the answer handed to the root
//     (its `message_delivered`) holds two model requests, one per side, and both tools' work;
// (b) the memory 50 idle children hold: children that finished their task and are kept
//     (`child_agents.max_sessions: 50`), heap and RSS after a full GC, per child.

const FULL_ROUND_TRIPS = 200;
const QUICK_ROUND_TRIPS = 10;
/** "memory of 50 idle children" (issue: Agents that work together, benchmarks). */
const IDLE_CHILDREN = 50;
const QUICK_IDLE_CHILDREN = 5;
/** Long enough that no wait ends by its timeout in a healthy run. */
const WAIT_MS = 60_000;
const CHILD_PROVIDER = "fake2";
const CHILD_MODEL_ID = "child-model";
const API_KEY = "sk-bench";

const call = (name: string, args: Record<string, unknown>) => ({ tool_calls: [{ name, arguments: args }] });
/** run_subagent with the child on the second fake model; `yield_time_ms: 0` leaves it running. */
const runChild = (prompt: string, yieldTimeMs: number) =>
  call("run_subagent", {
    description: "start a child",
    prompt,
    yield_time_ms: yieldTimeMs,
    provider: CHILD_PROVIDER,
    model_id: CHILD_MODEL_ID,
  });

function roundTripScripts(rounds: number): { root: FakeLlmScript; child: FakeLlmScript } {
  const root: unknown[] = [runChild("Answer every message at once.", 0)];
  const child: unknown[] = [];
  for (let i = 1; i <= rounds; i++) {
    root.push(
      call("send_message", { to: "sub_1", text: `ping ${i}` }),
      call("wait_messages", { timeout_ms: WAIT_MS }),
    );
    child.push(
      call("wait_messages", { timeout_ms: WAIT_MS }),
      call("send_message", { to: "root", text: `pong ${i}` }),
    );
  }
  root.push({ text: "All round trips done." });
  child.push({ text: "Child done." });
  return { root: { turns: root }, child: { turns: child } } as { root: FakeLlmScript; child: FakeLlmScript };
}

function idleChildrenScripts(children: number): { root: FakeLlmScript; child: FakeLlmScript } {
  const root: unknown[] = [];
  const child: unknown[] = [];
  for (let i = 1; i <= children; i++) {
    root.push(runChild(`Say that child ${i} is done.`, WAIT_MS));
    child.push({ text: `Child ${i} is done.` });
  }
  root.push({ text: "All children done." });
  return { root: { turns: root }, child: { turns: child } } as { root: FakeLlmScript; child: FakeLlmScript };
}

/** Both fake models in the data root's project config, and the agent with the messaging tools. */
async function agentOn(dataRoot: string, rootUrl: string, childUrl: string, maxSessions: number) {
  const model = (provider: string, modelId: string, url: string) => ({
    provider,
    api: "openai" as const,
    model_id: modelId,
    base_url: `${url}/v1`,
    api_key: API_KEY,
    context_window: 1_000_000,
  });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [model("fake", "fake-model", rootUrl), model(CHILD_PROVIDER, CHILD_MODEL_ID, childUrl)],
    }),
  );
  return createAgent({
    dataRoot,
    logger: { warn: () => {} },
    config: { tools: { preset: "extended" }, child_agents: { max_sessions: maxSessions } },
  });
}

async function withModels<T>(
  name: string,
  scripts: { root: FakeLlmScript; child: FakeLlmScript },
  maxSessions: number,
  run: (session: Session, workspace: string) => Promise<T>,
): Promise<T> {
  const dirs = makeBenchDirs(name);
  const rootLlm = await startFakeLlmProcess(scripts.root, dirs.root);
  // Each fake-llm process reads its script from its own folder.
  const childDir = join(dirs.root, "child-llm");
  mkdirSync(childDir, { recursive: true });
  const childLlm = await startFakeLlmProcess(scripts.child, childDir);
  try {
    const agent = await agentOn(dirs.dataRoot, rootLlm.url, childLlm.url, maxSessions);
    const session = await agent.createSession({
      workspaceDir: dirs.workspace,
      model: FAKE_MODEL,
      maxTurns: 10_000,
    });
    try {
      return await run(session, dirs.workspace);
    } finally {
      await session.dispose();
    }
  } finally {
    await Promise.all([rootLlm.close(), childLlm.close()]);
    dirs.cleanup();
  }
}

/** The payload type of a root-level event (not a child's, relayed with an origin). */
const ownEvent = (m: OmniMessage): string | undefined =>
  m.type === "event_msg" && (m.origin === undefined || m.origin.length === 0) ? m.payload.type : undefined;

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/**
 * The round trips, and the root's model requests in the same run (request_begin → request_end):
 * the baseline a round trip is read against, since it holds two such requests, one per side.
 */
async function roundTrips(rounds: number): Promise<{ trips: number[]; requests: number[] }> {
  return withModels("agents-round-trip", roundTripScripts(rounds), 8, async (session) => {
    const trips: number[] = [];
    const requests: number[] = [];
    let sentAt: bigint | undefined;
    let requestAt: bigint | undefined;
    let status: string | undefined;
    for await (const message of session.run("Exchange the messages.", { approve: allowAll })) {
      const type = ownEvent(message);
      if (type === "message_sent") sentAt = process.hrtime.bigint();
      else if (type === "message_delivered" && sentAt !== undefined) {
        trips.push(elapsedMs(sentAt));
        sentAt = undefined;
      } else if (type === "request_begin") requestAt = process.hrtime.bigint();
      else if (type === "request_end" && requestAt !== undefined) {
        requests.push(elapsedMs(requestAt));
        requestAt = undefined;
      } else if (type === "task_end" && message.payload.type === "task_end") status = message.payload.status;
    }
    if (status !== "completed" || trips.length !== rounds) {
      throw new Error(`the root did not make ${rounds} round trips: status ${status}, ${trips.length} made`);
    }
    return { trips, requests };
  });
}

interface IdleMemory {
  heapPerChildKiB: number;
  rssPerChildKiB: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
}

async function idleChildren(children: number): Promise<IdleMemory> {
  return withModels("agents-idle", idleChildrenScripts(children), children, async (session) => {
    collectGarbage();
    const before = process.memoryUsage();
    let status: string | undefined;
    for await (const message of session.run("Start the children.", { approve: allowAll })) {
      if (ownEvent(message) === "task_end" && message.payload.type === "task_end")
        status = message.payload.status;
    }
    collectGarbage();
    const after = process.memoryUsage();
    const kept = session.subagents;
    if (status !== "completed" || kept.length !== children || kept.some((c) => c.status !== "idle")) {
      throw new Error(
        `expected ${children} idle children: status ${status}, ${kept.length} kept (${kept.map((c) => c.status).join(", ")})`,
      );
    }
    return {
      heapPerChildKiB: (after.heapUsed - before.heapUsed) / 1024 / children,
      rssPerChildKiB: (after.rss - before.rss) / 1024 / children,
      heapBeforeMiB: before.heapUsed / 1024 / 1024,
      heapAfterMiB: after.heapUsed / 1024 / 1024,
    };
  });
}

export const agents: Benchmark = {
  name: "agents",
  summary: "message round trip root → child → root (median, p99) and memory per idle child (50 kept)",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const rounds = quick ? QUICK_ROUND_TRIPS : FULL_ROUND_TRIPS;
    const children = quick ? QUICK_IDLE_CHILDREN : IDLE_CHILDREN;
    const { trips, requests } = await roundTrips(rounds);
    const memory = await idleChildren(children);
    const row = (metric: string, value: number, unit: string, signed?: boolean): BenchRow => ({
      benchmark: this.name,
      metric,
      value,
      unit,
      ...(signed ? { signed } : {}),
    });
    return [
      row(`round trip root → child → root, median of ${rounds}`, median(trips), "ms"),
      row(`round trip root → child → root, p99 of ${rounds}`, percentile(trips, 99), "ms"),
      row(`root's model request, median of ${requests.length} (same run)`, median(requests), "ms"),
      row("round trip / model request (medians)", median(trips) / median(requests), "ratio"),
      row(`heap before ${children} children (after GC)`, memory.heapBeforeMiB, "MiB"),
      row(`heap after ${children} idle children (after GC)`, memory.heapAfterMiB, "MiB"),
      row("heap per idle child (after GC)", memory.heapPerChildKiB, "KiB", true),
      row("RSS per idle child (after GC)", memory.rssPerChildKiB, "KiB", true),
    ];
  },
};
