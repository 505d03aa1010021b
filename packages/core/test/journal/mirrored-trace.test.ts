import { existsSync } from "node:fs";
import { join } from "node:path";
import { tracesDir } from "@penguin/state";
import { mirrorTraces, type TraceMirror, type TraceStreamRef } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, setup, traceRecords } from "../sdk/fixtures.js";

// A trace kept in a second place (the server's database, for another instance to resume from):
// a tool starts only once its `tool_dispatched` is stored there too, and a copy that cannot store
// it keeps the tool from running.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A mirror whose store takes `delayMs`, or fails; it notes what it held when each wait ended. */
class SlowMirror implements TraceMirror {
  readonly lines: string[] = [];
  readonly storedWhen: string[][] = [];
  /** Called with each line as it arrives. */
  onLine: (line: string) => void = () => {};
  constructor(
    private readonly delayMs: number,
    private readonly failure?: string,
  ) {}
  appended(_ref: TraceStreamRef, line: string): void {
    this.lines.push(line);
    this.onLine(line);
  }
  async stored(): Promise<void> {
    // Infinity: a copy that never answers.
    await new Promise((resolve) => {
      if (Number.isFinite(this.delayMs)) setTimeout(resolve, this.delayMs);
    });
    if (this.failure) throw new Error(this.failure);
    this.storedWhen.push([...this.lines]);
  }
}

async function runCommand(mirror: SlowMirror, signal?: AbortSignal) {
  const marker = "ran.txt";
  const env = await setup([
    {
      tool_calls: [
        {
          id: "c1",
          name: "exec_command",
          arguments: { description: "Marks the run.", cmd: `echo ran > ${marker}` },
        },
      ],
    },
    { text: "done" },
  ]);
  cleanups.push(() => env.cleanup());
  cleanups.push(mirrorTraces(tracesDir(env.dataRoot), mirror));
  const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
  await collect(session.run("Run it.", { approve: allowAll, ...(signal ? { signal } : {}) }));
  await session.dispose();
  return { ran: existsSync(join(env.workspaceDir, marker)), records: traceRecords(session.tracePath) };
}

describe("a trace mirrored elsewhere", () => {
  it("a command starts only after its tool_dispatched is stored in the copy", async () => {
    const mirror = new SlowMirror(50);
    const { ran, records } = await runCommand(mirror);
    expect(ran).toBe(true);
    const dispatched = mirror.storedWhen.find((held) =>
      held.some((line) => line.includes('"tool_dispatched"')),
    );
    expect(dispatched).toBeDefined();
    // When that wait ended the copy held the dispatch and nothing the command did after it.
    expect(dispatched?.some((line) => line.includes('"tool_call_output"'))).toBe(false);
    // The copy holds the whole trace, line for line.
    expect(mirror.lines.map((line) => JSON.parse(line))).toEqual(records);
  });

  it("a copy that cannot store the dispatch: the call fails with the reason and the command never runs", async () => {
    const mirror = new SlowMirror(5, "the database is unreachable");
    const { ran, records } = await runCommand(mirror);
    expect(ran).toBe(false);
    const output = records.find((r) => r.payload.type === "tool_call_output");
    expect(JSON.stringify(output?.payload)).toContain("the database is unreachable");
    expect(output?.payload).toMatchObject({ tool_call_id: "c1", stop_reason: "failed" });
  });

  it("an interrupt while the dispatch is being stored: the wait ends and the command never starts", async () => {
    const mirror = new SlowMirror(Number.POSITIVE_INFINITY);
    const interrupt = new AbortController();
    mirror.onLine = (line) => {
      if (line.includes('"tool_dispatched"')) setImmediate(() => interrupt.abort());
    };
    const { ran, records } = await runCommand(mirror, interrupt.signal);
    expect(ran).toBe(false);
    const output = records.find((r) => r.payload.type === "tool_call_output");
    expect(output?.payload).toMatchObject({ tool_call_id: "c1", stop_reason: "aborted" });
  });
});
