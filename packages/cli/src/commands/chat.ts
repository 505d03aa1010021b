import { createAgent } from "@penguin/core";
import { listSessions } from "@penguin/trace";
import { dataRootOf, traceLocationOf } from "../data-root.js";
import { UsageError } from "../exit-codes.js";
import { openCliLog } from "../logging.js";
import { resolveModelRef } from "../model-choice.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { checkSessionFlags, refuseWithResume } from "../session/session-flags.js";
import { chatOnLines } from "./chat-lines.js";
import { chatOnTerminal } from "./chat-on-terminal.js";
import type { ChatOptions } from "./chat-session.js";

export type { ChatOptions } from "./chat-session.js";

/** The newest top-level session of a data root (subagent sessions are resumed through their parent). */
function newestSessionId(dataRoot: string): string {
  const sessions = listSessions(traceLocationOf(dataRoot)).filter((s) => s.parentSessionId === undefined);
  if (sessions.length === 0) {
    throw new UsageError(`there is no session to resume under ${dataRoot}: start one with penguin chat`);
  }
  return sessions.reduce((a, b) => (b.updated > a.updated ? b : a)).sessionId;
}

/** `penguin chat`: prompts typed at a terminal (or piped one per line) run as tasks of one session. */
export async function chatCommand(opts: ChatOptions): Promise<number> {
  if (opts.resume !== undefined && opts.resume !== false) refuseWithResume(opts);
  checkSessionFlags(opts);
  // Checked before anything opens: a bad model reference is a usage error, never a hung terminal.
  const modelRef = resolveModelRef(opts.model);
  const dataRoot = dataRootOf(opts);
  const log = await openCliLog(dataRoot, opts.verbose);
  log.debug({ command: "chat", approve: opts.approve }, "command start");
  const resume =
    opts.resume === undefined || opts.resume === false
      ? undefined
      : opts.resume === true
        ? newestSessionId(dataRoot)
        : opts.resume;
  const agent = await createAgent({ dataRoot, logger: log.agentLogger });
  // A person types at stdin; the chat's screen (line editor, activity, questions) is stderr, or
  // stdout when stderr goes to a file (`penguin chat 2>log`). With neither on a terminal, or no
  // terminal on stdin, lines are read one by one.
  const screenStream = [process.stderr, process.stdout].find((stream) => stream.isTTY === true);
  const start = { agent, opts, modelRef, resume, log };
  if (process.stdin.isTTY === true && screenStream) {
    const style = createStyle(colourEnabled(screenStream));
    return chatOnTerminal({ ...start, style }, screenStream);
  }
  const style = createStyle(colourEnabled(process.stderr));
  return chatOnLines({ ...start, style });
}
