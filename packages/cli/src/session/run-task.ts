import type { Approver, RunInput, Session } from "@penguin/core";
import type { CliLog } from "../logging.js";
import type { TerminalRenderer } from "../render/terminal-renderer.js";

export interface TaskOptions {
  approve: Approver;
  signal: AbortSignal;
  maxTurns?: number;
  /** Print every envelope as one JSON line on stdout instead of rendering it. */
  json?: boolean;
  renderer: TerminalRenderer;
  log: CliLog;
}

/** Runs one task of a session to its `task_end`; returns its status ("completed", "aborted", …). */
export async function runTask(session: Session, input: RunInput, opts: TaskOptions): Promise<string> {
  let status = "completed";
  opts.renderer.beginTask();
  opts.renderer.screen.start();
  try {
    for await (const message of session.run(input, {
      approve: opts.approve,
      signal: opts.signal,
      maxTurns: opts.maxTurns,
    })) {
      opts.log.message(message);
      // A reader that went away (stdout no longer writable) is not written to again.
      if (opts.json) {
        if (process.stdout.writable) process.stdout.write(`${JSON.stringify(message)}\n`);
      } else opts.renderer.render(message);
      if (message.type === "event_msg" && message.payload.type === "task_end" && !message.origin?.length)
        status = message.payload.status;
    }
  } finally {
    opts.renderer.screen.stop();
  }
  return status;
}
