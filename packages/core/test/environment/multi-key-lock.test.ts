import { mkdir } from "node:fs/promises";
import { type OmniMessage, partialToolCallOutput, toolCall } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "../../src/environment/environment.js";
import { KeyedLock } from "../../src/environment/path-lock.js";
import { type CallRecord, inspect, makeEnvironment, type TempDirs, tempDirs, testTool } from "./support.js";

// A call that changes several paths holds all of their locks: it waits for every earlier call on
// any of them, and calls with keys in opposite orders never wait on each other.

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
});
afterEach(async () => {
  await dirs.cleanup();
});

/** A promise the test resolves by hand, so a holder keeps its locks exactly as long as needed. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * A tool that locks the keys it is given (`args.keys`), records when its body starts and ends,
 * and waits for the named gate (if any) in between.
 */
function lockingTool(events: string[], gates: Map<string, Promise<void>>) {
  return testTool(
    async function* (args, ctx) {
      events.push(`start ${args.tag}`);
      yield partialToolCallOutput("delta", ctx.toolCallId, `ran ${args.tag}`);
      const waitFor = typeof args.gate === "string" ? gates.get(args.gate) : undefined;
      if (waitFor) await waitFor;
      events.push(`end ${args.tag}`);
      return {};
    },
    { name: "locking", permission: "rw" },
    { lockKeys: (args) => (Array.isArray(args.keys) ? args.keys.map(String) : []) },
  );
}

/**
 * Starts every call in order, the way the engine does (each has joined its queues before the next
 * one starts), and returns one promise per call for its record.
 */
async function startInOrder(
  env: Environment,
  calls: { args: Record<string, unknown>; id: string; signal?: AbortSignal }[],
): Promise<Promise<CallRecord>[]> {
  const runs = calls.map((c) => env.executeTool(toolCall("locking", c.args, c.id), { signal: c.signal }));
  const firsts = await Promise.all(runs.map((run) => run.next()));
  return runs.map(async (run, i) => {
    const messages: OmniMessage[] = [firsts[i]!.value as OmniMessage];
    for await (const message of run) messages.push(message);
    return inspect(messages, calls[i]!.id);
  });
}

describe("a call with several path locks", () => {
  it("never deadlocks with a call that locks the same paths in the opposite order", async () => {
    const events: string[] = [];
    const first = gate();
    const env = makeEnvironment(dirs, [lockingTool(events, new Map([["first", first.opened]]))]);
    const [one, two, three] = await startInOrder(env, [
      { args: { tag: "1", keys: ["/x", "/y"], gate: "first" }, id: "c1" },
      { args: { tag: "2", keys: ["/y", "/x"] }, id: "c2" },
      { args: { tag: "3", keys: ["/x"] }, id: "c3" },
    ]);
    first.open();
    // A deadlock would leave these pending and the test would time out.
    const records = await Promise.all([one!, two!, three!]);
    expect(records.map((r) => r.complete.stop_reason)).toEqual(["completed", "completed", "completed"]);
    expect(events).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("waits for an earlier call on any one of its paths, while unrelated paths run on", async () => {
    const events: string[] = [];
    const holder = gate();
    const env = makeEnvironment(dirs, [lockingTool(events, new Map([["holder", holder.opened]]))]);
    const [one, two, other] = await startInOrder(env, [
      { args: { tag: "b-holder", keys: ["/b"], gate: "holder" }, id: "c1" },
      { args: { tag: "a-and-b", keys: ["/a", "/b"] }, id: "c2" },
      { args: { tag: "c", keys: ["/c"] }, id: "c3" },
    ]);
    expect((await other!).complete.stop_reason).toBe("completed");
    expect(events).not.toContain("start a-and-b");
    holder.open();
    await Promise.all([one!, two!]);
    expect(events.indexOf("end b-holder")).toBeLessThan(events.indexOf("start a-and-b"));
  });

  it("hands on every place of a waiter interrupted while waiting, each as soon as its turn comes", async () => {
    const events: string[] = [];
    const holder = gate();
    const env = makeEnvironment(dirs, [lockingTool(events, new Map([["holder", holder.opened]]))]);
    const interrupt = new AbortController();
    const [one, two, three, four] = await startInOrder(env, [
      { args: { tag: "x-holder", keys: ["/x"], gate: "holder" }, id: "c1" },
      { args: { tag: "x-and-y", keys: ["/x", "/y"] }, id: "c2", signal: interrupt.signal },
      { args: { tag: "y", keys: ["/y"] }, id: "c3" },
      { args: { tag: "x", keys: ["/x"] }, id: "c4" },
    ]);
    interrupt.abort();
    const waiter = await two!;
    expect(waiter.complete.stop_reason).toBe("aborted");
    // The interrupted call held /y's place (waiting for /x); it gave /y up at once, while /x is
    // still held by the first call.
    expect((await three!).complete.stop_reason).toBe("completed");
    expect(events).toEqual(["start x-holder", "start y", "end y"]);
    holder.open();
    expect((await one!).complete.stop_reason).toBe("completed");
    expect((await four!).complete.stop_reason).toBe("completed");
    expect(events).not.toContain("start x-and-y");
    // Both queues drained: a new call on both paths runs at once.
    const [after] = await startInOrder(env, [{ args: { tag: "after", keys: ["/x", "/y"] }, id: "c5" }]);
    expect((await after!).complete.stop_reason).toBe("completed");
  });
});

describe("KeyedLock.acquireAll", () => {
  it("counts a key named twice once (a call never waits for itself)", async () => {
    const lock = new KeyedLock();
    const release = await lock.acquireAll(["/x", "/y", "/x"]).held;
    const next = lock.acquireAll(["/x"]);
    let nextHeld = false;
    void next.held.then(() => {
      nextHeld = true;
    });
    await Promise.resolve();
    expect(nextHeld).toBe(false);
    release();
    (await next.held)();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lock.size).toBe(0);
  });

  it("abandoned places are released, and the map forgets drained keys", async () => {
    const lock = new KeyedLock();
    const first = await lock.acquireAll(["/x"]).held;
    const abandoned = lock.acquireAll(["/x", "/y"]);
    abandoned.abandon();
    // /y was free: its place is handed on without waiting for /x.
    (await lock.acquireAll(["/y"]).held)();
    const later = lock.acquireAll(["/x"]);
    first();
    (await later.held)();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lock.size).toBe(0);
  });
});
