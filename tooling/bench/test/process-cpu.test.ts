import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processCpu } from "../src/process-cpu.js";

// end_to_end reads a loop's CPU time at each of its model requests; these check that the reading
// follows the work a process does and says so when the process is gone.

/** Spins until this process's own clock (getrusage) shows `ms` more CPU. */
function spinCpu(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

describe("processCpu", () => {
  it("follows the CPU time the main thread spends", () => {
    const before = processCpu(process.pid);
    expect(before).toBeDefined();
    spinCpu(60);
    const after = processCpu(process.pid);
    expect(after).toBeDefined();
    if (before === undefined || after === undefined) return;
    // getrusage counts every thread of the process (the test runner's and V8's too), schedstat the
    // main thread alone: most of the 60 ms, not all of it (47 ms in one CI run), is the main thread's.
    expect((after.mainNs - before.mainNs) / 1e6).toBeGreaterThanOrEqual(25);
    expect(after.allNs).toBeGreaterThanOrEqual(after.mainNs);
  });

  it("gives nothing for a process that has ended", async () => {
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    const pid = child.pid as number;
    await new Promise((resolve) => child.on("exit", resolve));
    // Node reaps its child on exit, so /proc no longer holds it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(processCpu(pid)).toBeUndefined();
  });
});
