import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createAgent, type GoalOptions, type RunInput } from "@penguin/core";
import { dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { openCliLog } from "../logging.js";
import { resolveModelRef } from "../model-choice.js";
import { terminalAsk } from "../prompts/approval-prompt.js";
import { terminalAnswerer } from "../prompts/question-prompt.js";
import { readStdin } from "../prompts/stdin.js";
import { textModeFor } from "../render/assistant-text.js";
import { Screen } from "../render/screen.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { TerminalRenderer } from "../render/terminal-renderer.js";
import { cassetteWriteError, writableCassette } from "../session/cassette-path.js";
import { closedOutputNote, whenOutputCloses } from "../session/closed-output.js";
import { jobsLeftRunning, resumeReport } from "../session/resume-report.js";
import { runTask } from "../session/run-task.js";
import {
  approvalPolicy,
  checkSessionFlags,
  parsePositive,
  refuseWithResume,
  type SessionFlags,
} from "../session/session-flags.js";
import { CtrlC } from "../terminal/ctrl-c.js";
import { onEndSignals, signalExitCode } from "../terminal/end-signals.js";
import { askLineOnce } from "../terminal/question.js";

export interface RunOptions extends SessionFlags {
  message?: string;
  model?: string;
  attach: string[];
  resume?: string;
  record?: string;
  json?: boolean;
  goal?: boolean;
  goalBudget?: string;
  fullOutput?: boolean;
  showThinking?: boolean;
  verbose?: boolean;
  dataDir?: string;
}

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp)$/i;

/** `--attach` files: images go to the model as images (or as paths for text-only models), the rest as paths. */
function inputWith(prompt: string, attachments: string[]): RunInput {
  if (attachments.length === 0) return prompt;
  const images: string[] = [];
  const files: string[] = [];
  for (const file of attachments) {
    const absolute = resolve(file);
    if (!existsSync(absolute)) throw new UsageError(`cannot attach ${file}: no such file`);
    if (!statSync(absolute).isFile()) {
      const what = statSync(absolute).isDirectory() ? "a folder" : "not a regular file";
      throw new UsageError(`cannot attach ${file}: it is ${what}; attach a file`);
    }
    (IMAGE_EXTENSIONS.test(absolute) ? images : files).push(absolute);
  }
  return { text: prompt, images, files };
}

/** `penguin run`: one task, streamed to the terminal (or as JSON lines), then exit. */
export async function runCommand(opts: RunOptions): Promise<number> {
  if (opts.resume !== undefined) refuseWithResume(opts);
  const { workspaceDir, maxTurns, thinkingLevel, budget } = checkSessionFlags(opts);
  const goal = goalFrom(opts);
  if (opts.record !== undefined && opts.resume !== undefined) {
    throw new UsageError(
      "--record starts a new cassette with a new session; it cannot be used with --resume",
    );
  }
  let prompt = opts.message;
  if (prompt === undefined && !process.stdin.isTTY) prompt = await readStdin();
  if (prompt === undefined || prompt.trim() === "") {
    throw new UsageError('no task given: pass -m "<prompt>" or pipe the prompt on stdin');
  }
  const input = inputWith(prompt, opts.attach);
  const cassette = opts.record === undefined ? undefined : writableCassette(opts.record);

  const dataRoot = dataRootOf(opts);
  const log = await openCliLog(dataRoot, opts.verbose);
  log.debug({ command: "run", approve: opts.approve, resume: opts.resume, json: opts.json }, "command start");
  const agent = await createAgent({ dataRoot, logger: log.agentLogger });
  const leftRunning = opts.resume !== undefined ? jobsLeftRunning(agent, opts.resume) : [];
  const session = opts.resume
    ? await agent.resumeSession(opts.resume, { thinkingLevel, budget })
    : await agent
        .createSession({
          workspaceDir,
          model: resolveModelRef(opts.model),
          thinkingLevel,
          budget,
          record: cassette,
          ...(opts.profile !== undefined ? { executionProfile: opts.profile } : {}),
        })
        .catch((error: unknown) => {
          throw (cassette && cassetteWriteError(cassette, error)) || error;
        });

  const style = createStyle(colourEnabled(process.stderr));
  // What a crash left, before the task (stderr: --json's stdout stays the session's records).
  if (opts.resume !== undefined)
    for (const line of await resumeReport(session, leftRunning, style)) process.stderr.write(`${line}\n`);
  const live = process.stderr.isTTY === true && !opts.json;
  const screen = new Screen({ out: process.stdout, err: process.stderr, live });
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: process.stderr,
    style,
    screen,
    text: opts.json ? "exact" : textModeFor(process.stdout),
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
    expandHint: "--full-output shows outputs whole",
  });

  // One disposal, however many ways there are to end: every path waits for the same one.
  let disposing: Promise<void> | undefined;
  const dispose = () => {
    disposing ??= session.dispose();
    return disposing;
  };
  const disposeAndExit = (code: number) => void dispose().finally(() => process.exit(code));
  const ctrlC = new CtrlC({
    note: (line) => renderer.line(style.yellow(line)),
    exit: () => disposeAndExit(EXIT_TASK_FAILED),
  });
  const onSigint = () => ctrlC.press();
  process.on("SIGINT", onSigint);
  // SIGTERM or SIGHUP: the task stops as after Ctrl-C, the session is disposed and the exit code
  // is 128 + the signal's number; a second one (or one while no task runs) exits at once.
  let endedBy: number | undefined;
  const offEndSignals = onEndSignals((signal, count) => {
    const code = signalExitCode(signal);
    if (count === 1 && ctrlC.abort(`ended by ${signal}`)) {
      endedBy = code;
      renderer.line(style.yellow(`${signal}: stopping the task…`));
    } else disposeAndExit(code);
  });
  // A reader that closes the pipe ends the task (the exit code then says whether it had
  // completed); the stream that still works says why.
  whenOutputCloses((stream, error) => {
    if (ctrlC.abort(`${stream} was closed`)) renderer.line(style.yellow(closedOutputNote(stream, error)));
  });

  const question = async (text: string, signal?: AbortSignal) => {
    screen.pause();
    try {
      return await askLineOnce(text, signal);
    } finally {
      screen.resume();
    }
  };
  const terminal = {
    interactive: process.stdin.isTTY === true,
    style,
    print: (line: string) => renderer.line(line),
    onCtrlC: () => ctrlC.press(),
    question,
  };
  const ask = terminalAsk({ ...terminal, onAsk: (call) => renderer.markShown(call.payload.tool_call_id) });

  // A new session's stream starts with its session_meta; a resumed one's does not (the record is
  // in the trace already), so --json prints the recorded one first: every run's JSON lines start
  // by saying which session, model and workspace they belong to.
  if (opts.json && opts.resume !== undefined && process.stdout.writable) {
    process.stdout.write(`${JSON.stringify(session.meta)}\n`);
  }
  let status = "failed";
  let goalOutcome: string | undefined;
  let proposed = false;
  try {
    const result = await runTask(session, input, {
      approve: approvalPolicy(opts.approve, ask),
      onAsk: terminalAnswerer(terminal),
      signal: ctrlC.startTask(),
      maxTurns,
      goal,
      json: opts.json,
      renderer,
      log,
    });
    status = result.status;
    goalOutcome = result.goal?.outcome;
    proposed = result.proposed !== undefined;
  } finally {
    ctrlC.endTask();
    process.off("SIGINT", onSigint);
    await dispose();
    offEndSignals();
  }
  log.debug({ session_id: session.id, status, goal: goalOutcome }, "command end");
  if (!opts.json) {
    renderer.finish(session.tracePath);
    if (status === "aborted")
      renderer.line(style.dim(`resume with: penguin run --resume ${session.id} -m "…"`));
    // A plan is approved in a chat: `run` has nobody to ask once it has printed the plan.
    if (proposed)
      renderer.line(
        style.dim(`approve it with: penguin chat --resume ${session.id}, then /plan approve [mode]`),
      );
  } else process.stderr.write(`trace: ${session.tracePath}\n`);
  if (log.file) process.stderr.write(`log: ${log.file}\n`);
  if (endedBy !== undefined) return endedBy;
  // "complete → 0, others → 1": a goal is done only when the model marked it complete.
  if (goal) return goalOutcome === "complete" ? EXIT_COMPLETED : EXIT_TASK_FAILED;
  return status === "completed" ? EXIT_COMPLETED : EXIT_TASK_FAILED;
}

/** `--goal [--goal-budget N]`: goal mode's options, or undefined for a plain task. */
function goalFrom(opts: RunOptions): GoalOptions | undefined {
  const budget = parsePositive("--goal-budget", opts.goalBudget, true);
  if (!opts.goal) {
    if (budget !== undefined) throw new UsageError("--goal-budget needs --goal: pass both, or neither");
    return undefined;
  }
  return budget === undefined ? {} : { budget };
}
