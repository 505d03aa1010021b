import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OmniMessage, sessionMeta } from "@penguin/protocol";
import { afterEach } from "vitest";
import type { TraceLocation } from "../src/index.js";

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A fresh data root under the OS temp folder, removed after the test. */
export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "penguin-trace-"));
  roots.push(root);
  return root;
}

export function tempLocation(): TraceLocation & { root: string } {
  const root = tempRoot();
  return { root, tracesDir: join(root, "traces"), scratchpadRoot: join(root, "scratchpad") };
}

export function meta(sessionId: string, extra: Record<string, unknown> = {}): OmniMessage {
  return sessionMeta({
    session_id: sessionId,
    provider: "openai",
    model_id: "gpt-test",
    system_prompt: "You are a test.",
    workspace: "/work/space",
    ...extra,
  });
}

/** The file mode bits (0o600, 0o700...). */
export function modeOf(stat: { mode: number }): number {
  return stat.mode & 0o777;
}
