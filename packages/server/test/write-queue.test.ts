import { describe, expect, it } from "vitest";
import { WriteQueue } from "../src/runtime/write-queue.js";

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("WriteQueue", () => {
  it("lands writes in the order they were queued, a slow first one included", async () => {
    const landed: string[] = [];
    const queue = new WriteQueue(() => {});
    const slow = queue.push(async () => {
      await delay(50);
      landed.push("idle");
    });
    const fast = queue.push(async () => {
      landed.push("running");
    });
    await Promise.all([slow, fast]);
    expect(landed).toEqual(["idle", "running"]);
  });

  it("waits for `after` too, and a failed write is reported without stopping the next", async () => {
    const landed: string[] = [];
    const failures: unknown[] = [];
    const queue = new WriteQueue((error) => failures.push(error));
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = queue.push(async () => {
      throw new Error("disk full");
    }, gate);
    const second = queue.push(async () => {
      landed.push("second");
    });
    await delay(20);
    expect(landed).toEqual([]);
    release();
    await Promise.all([first, second]);
    await queue.drained();
    expect(landed).toEqual(["second"]);
    expect(failures).toEqual([new Error("disk full")]);
  });
});
