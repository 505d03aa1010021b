import {
  MAX_INBOX_BYTES,
  MAX_INBOX_MESSAGES,
  MAX_WAIT_MESSAGES_TIMEOUT_MS,
  MESSAGING_TOOL_NAMES,
  presetToolDefinitions,
} from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Mailbox,
  MessageHub,
  NO_MAILBOX_MESSAGE,
  waitTimeout,
} from "../../src/tools/messaging/index.js";
import { createBuiltinTools } from "../../src/tools/registry.js";
import { makeEnvironment } from "../environment/support.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "../extended/support.js";

// The inbox bounds and the wait, through the real tools in the real Environment: a hub with a
// root and one running child, each tool call made as one of them.

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await dirs.cleanup();
});

function hubWith(limits?: { maxMessages: number; maxBytes: number }) {
  const hub = new MessageHub(limits);
  hub.open("root");
  hub.open("sub_1");
  const as = (self: string): Mailbox => ({ hub, self });
  return {
    hub,
    root: extendedEnvironment(dirs, { mailbox: as("root") }),
    child: extendedEnvironment(dirs, { mailbox: as("sub_1") }),
  };
}

describe("a bounded inbox", () => {
  it("has documented default bounds", () => {
    expect(MAX_INBOX_MESSAGES).toBe(64);
    expect(MAX_INBOX_BYTES).toBe(256 * 1024);
  });

  it("refuses a message past the count bound, and accepts again once its owner has read", async () => {
    const { root, child } = hubWith({ maxMessages: 2, maxBytes: 1_000 });
    for (const n of [1, 2]) {
      const sent = await runCall(root, "send_message", { to: "sub_1", text: `message ${n}` });
      expect(sent.complete.stop_reason).toBe("completed");
      expect(sent.complete.output).toBe(
        `Message msg_${n} sent to sub_1 (${n === 1 ? "1 message waits" : "2 messages wait"} in its inbox).`,
      );
    }
    const full = await runCall(root, "send_message", { to: "sub_1", text: "message 3" });
    expect(full.complete.stop_reason).toBe("failed");
    expect(full.complete.output).toBe(
      'the inbox of "sub_1" is full: 2 messages wait (the limit is 2). Nothing was sent; send again after it has read its messages.',
    );
    expect(full.messages.some((m) => m.type === "event_msg")).toBe(false);

    const read = await runCall(child, "wait_messages", { timeout_ms: 0 });
    expect(read.complete.output).toContain("2 messages:");
    expect(read.complete.output).toContain("message 1");
    expect(read.complete.output).toContain("message 2");
    expect(read.complete.output).not.toContain("message 3");
    const again = await runCall(root, "send_message", { to: "sub_1", text: "message 3" });
    expect(again.complete.stop_reason).toBe("completed");
  });

  it("refuses a message past the byte bound (UTF-8 bytes, not characters)", async () => {
    const { root, child } = hubWith({ maxMessages: 10, maxBytes: 9 });
    expect((await runCall(root, "send_message", { to: "sub_1", text: "ééé" })).complete.stop_reason).toBe(
      "completed",
    );
    const over = await runCall(root, "send_message", { to: "sub_1", text: "éé" });
    expect(over.complete.stop_reason).toBe("failed");
    expect(over.complete.output).toContain(
      'the inbox of "sub_1" is full: 6 bytes wait and this message has 4 bytes, over the limit of 9 bytes.',
    );
    const read = await runCall(child, "wait_messages", { timeout_ms: 0 });
    expect(read.complete.output).toMatch(/^1 message:\n\n\[msg_1\] from root at .+:\nééé$/);
  });

  it("refuses an empty text and a message to oneself", async () => {
    const { root } = hubWith();
    const empty = await runCall(root, "send_message", { to: "sub_1", text: "  \n" });
    expect(empty.complete.stop_reason).toBe("failed");
    expect(empty.complete.output).toBe("send_message needs a non-empty text; nothing was sent.");
    const self = await runCall(root, "send_message", { to: "root", text: "hi" });
    expect(self.complete.output).toContain('"root" is you');
  });

  it("answers an unknown recipient with the agents that can receive", async () => {
    const { root } = hubWith();
    const unknown = await runCall(root, "send_message", { to: "sub_7", text: "hi" });
    expect(unknown.complete.stop_reason).toBe("failed");
    expect(unknown.complete.output).toBe(
      'unknown recipient "sub_7"; nothing was sent. Agents that can receive: sub_1.',
    );
  });
});

describe("wait_messages", () => {
  it("times out with a clear note when nothing arrives", async () => {
    const { child } = hubWith();
    const started = Date.now();
    const call = await runCall(child, "wait_messages", { timeout_ms: 150 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(call.complete.stop_reason).toBe("completed");
    expect(call.complete.output).toBe("No message arrived for sub_1 within 150 ms.");
  });

  it("returns as soon as a message arrives while it waits", async () => {
    const { hub, child } = hubWith();
    const started = Date.now();
    setTimeout(() => hub.send("root", "sub_1", "here it is"), 100);
    const call = await runCall(child, "wait_messages", { timeout_ms: 60_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(call.complete.output).toContain("here it is");
  });

  it("hands a message to one of two waits, and the other waits on to its own timeout", async () => {
    const { hub, child } = hubWith();
    const started = Date.now();
    setTimeout(() => hub.send("root", "sub_1", "only one"), 50);
    const [a, b] = await Promise.all([
      runCall(child, "wait_messages", { timeout_ms: 400 }, "call_a"),
      runCall(child, "wait_messages", { timeout_ms: 400 }, "call_b"),
    ]);
    const outputs = [a.complete.output, b.complete.output];
    expect(outputs.filter((o) => o.includes("only one"))).toHaveLength(1);
    expect(outputs).toContain("No message arrived for sub_1 within 400 ms.");
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it("clamps a timeout past the maximum and says so", async () => {
    expect(waitTimeout(MAX_WAIT_MESSAGES_TIMEOUT_MS + 1)).toEqual({
      ok: true,
      ms: MAX_WAIT_MESSAGES_TIMEOUT_MS,
      clamped: true,
    });
    const { hub, child } = hubWith();
    hub.send("root", "sub_1", "waiting already");
    const call = await runCall(child, "wait_messages", { timeout_ms: 10_000_000 });
    expect(call.complete.output).toContain("waiting already");
    expect(call.complete.output).toContain(
      `[timeout_ms was clamped to the maximum, ${MAX_WAIT_MESSAGES_TIMEOUT_MS} ms]`,
    );
  });

  it("ends at once on abort, and what arrives later waits for the next call", async () => {
    const { hub, child } = hubWith();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("interrupted")), 100);
    const started = Date.now();
    const call = await runCall(child, "wait_messages", { timeout_ms: 600_000 }, "call_1", {
      signal: controller.signal,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(call.complete.stop_reason).toBe("aborted");
    hub.send("root", "sub_1", "after the interrupt");
    const next = await runCall(child, "wait_messages", { timeout_ms: 0 });
    expect(next.complete.output).toContain("after the interrupt");
  });

  it("fails clearly in a toolset made outside a session's agents (no inbox)", async () => {
    const definitions = presetToolDefinitions("extended").filter((d) =>
      MESSAGING_TOOL_NAMES.includes(d.name),
    );
    const env = makeEnvironment(dirs, createBuiltinTools(definitions).tools);
    for (const [name, args] of [
      ["send_message", { to: "root", text: "hi" }],
      ["wait_messages", {}],
    ] as const) {
      const call = await runCall(env, name, args);
      expect(call.complete.stop_reason).toBe("failed");
      expect(call.complete.output).toBe(NO_MAILBOX_MESSAGE);
    }
    await env.dispose();
  });
});
