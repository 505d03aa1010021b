import type { Line } from "../resume/session-process.js";

// What the execution tests share besides the session process (../resume/session-process.ts).

export { type Line, type SessionProcess, spawnSessionProcess } from "../resume/session-process.js";

export const payloadOf = (line: Line) => (line.payload ?? {}) as Record<string, unknown>;

/** Waits until `check` holds, polling. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
