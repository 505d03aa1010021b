import { createInterface } from "node:readline";
import { type Agent, createAgent, type Session } from "@penguin/core";
import { errorStack } from "@penguin/protocol";
import { listSessions } from "@penguin/trace";
import { dataRootOf, traceLocationOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { type CliLog, openCliLog } from "../logging.js";
import { resolveModelRef } from "../model-choice.js";
import { terminalAsk } from "../prompts/approval-prompt.js";
import { formatLocalTime, tildePath } from "../render/format.js";
import { Screen } from "../render/screen.js";
import { colourEnabled, createStyle, type Style } from "../render/style.js";
import { TerminalRenderer } from "../render/terminal-renderer.js";
import { closedOutputNote, whenOutputCloses } from "../session/closed-output.js";
import { runTask } from "../session/run-task.js";
import {
  approvalPolicy,
  budgetFrom,
  checkApprovalMode,
  existingWorkspace,
  parsePositive,
  parseThinking,
  refuseWithResume,
} from "../session/session-flags.js";
import { sessionSetup } from "../session/session-setup.js";
import { ChatTerminal } from "../terminal/chat-terminal.js";
import { CtrlC } from "../terminal/ctrl-c.js";
import { onEndSignals, signalExitCode } from "../terminal/end-signals.js";
import { helpLines, parseSlash } from "./chat-slash.js";

export interface ChatOptions {
  model?: string;
  /** Undefined: the current folder. */
  workspace?: string;
  approve: string;
  maxTurns?: string;
  thinking?: string;
  budgetTokens?: string;
  budgetCost?: string;
  budgetTime?: string;
  /** `--resume` alone is `true`: the newest session. */
  resume?: string | boolean;
  fullOutput?: boolean;
  showThinking?: boolean;
  verbose?: boolean;
  dataDir?: string;
}

/** How many sessions `/sessions` lists. */
export const SESSIONS_LISTED = 10;

/** The newest top-level session of a data root (subagent sessions are resumed through their parent). */
function newestSessionId(dataRoot: string): string {
  const sessions = listSessions(traceLocationOf(dataRoot)).filter((s) => s.parentSessionId === undefined);
  if (sessions.length === 0) {
    throw new UsageError(`there is no session to resume under ${dataRoot}: start one with penguin chat`);
  }
  return sessions.reduce((a, b) => (b.updated > a.updated ? b : a)).sessionId;
}

/**
 * The state of one chat: its session (replaced by /clear, /resume and /model), the approval mode
 * and the renderer. Both front ends (a terminal, or lines piped on stdin) drive it.
 */
class Chat {
  session!: Session;
  mode: string;
  /**
   * The model and workspace of the current session (its session_meta once one is open): /clear
   * and /model start the next session with them, so a resumed session's own carry over.
   */
  private modelRef: string | undefined;
  private workspaceDir: string;
  readonly ctrlC: CtrlC;
  private exiting: Promise<void> | undefined;
  lastStatus = "completed";

  constructor(
    private readonly agent: Agent,
    private readonly opts: ChatOptions,
    private readonly renderer: TerminalRenderer,
    private readonly style: Style,
    private readonly log: CliLog,
    private readonly ask: Parameters<typeof approvalPolicy>[1] | undefined,
    private readonly onExit: (code: number) => void,
    /** `--model` or `$PENGUIN_MODEL`, already checked; undefined: the project's default model. */
    modelRef: string | undefined,
  ) {
    this.mode = opts.approve;
    this.modelRef = modelRef;
    this.workspaceDir = opts.workspace ?? process.cwd();
    this.ctrlC = new CtrlC({
      note: (line) => this.say(this.style.yellow(line)),
      exit: () => void this.exit(EXIT_TASK_FAILED),
    });
  }

  private get sessionOptions() {
    return {
      thinkingLevel: parseThinking(this.opts.thinking),
      budget: budgetFrom(this.opts),
    };
  }

  say(line: string): void {
    this.renderer.line(line);
  }

  async open(resume: string | undefined): Promise<void> {
    const previous = this.session;
    this.session =
      resume !== undefined
        ? await this.agent.resumeSession(resume, this.sessionOptions)
        : await this.agent.createSession({
            workspaceDir: existingWorkspace(this.workspaceDir),
            model: this.modelRef,
            ...this.sessionOptions,
          });
    if (previous) await previous.dispose();
    ({ modelRef: this.modelRef, workspaceDir: this.workspaceDir } = sessionSetup(this.session));
    this.log.debug({ session_id: this.session.id, resumed: resume !== undefined }, "chat session");
    const verb = resume !== undefined ? "resumed" : "new";
    this.say(
      this.style.dim(
        `${verb} session ${this.session.id} in ${tildePath(this.session.workspaceDir)} · approve: ${this.mode} · /help for commands`,
      ),
    );
  }

  /** Runs one prompt as a task of the current session. */
  async prompt(text: string): Promise<void> {
    const approve = approvalPolicy(this.mode, this.ask ?? (async () => "deny"));
    try {
      this.lastStatus = await runTask(this.session, text, {
        approve,
        signal: this.ctrlC.startTask(),
        maxTurns: parsePositive("--max-turns", this.opts.maxTurns, true),
        renderer: this.renderer,
        log: this.log,
      });
    } finally {
      this.ctrlC.endTask();
    }
    this.renderer.finish(undefined);
  }

  /** Handles a slash command; returns false for /exit. */
  async slash(name: string, arg: string): Promise<boolean> {
    const { style } = this;
    switch (name) {
      case "help":
        for (const line of helpLines()) this.say(line);
        return true;
      case "exit":
      case "quit":
        return false;
      case "clear":
        await this.guard(() => this.open(undefined));
        return true;
      case "resume":
        if (!arg) {
          this.say(style.yellow("/resume takes a session id: /sessions lists them"));
          return true;
        }
        await this.guard(() => this.open(arg));
        return true;
      case "model":
        if (!arg) {
          this.say(`model: ${this.modelRef ?? "(the project's default_model)"}`);
          return true;
        }
        await this.guard(async () => {
          const ref = resolveModelRef(arg);
          const before = this.modelRef;
          this.modelRef = ref;
          try {
            await this.open(undefined);
          } catch (error) {
            this.modelRef = before;
            throw error;
          }
        });
        return true;
      case "approve":
        if (arg) {
          await this.guard(async () => {
            this.mode = checkApprovalMode(arg);
          });
        }
        this.say(`approval mode: ${this.mode}`);
        return true;
      case "sessions": {
        const sessions = listSessions(traceLocationOf(this.agent.dataRoot))
          .filter((s) => s.parentSessionId === undefined)
          .slice(0, SESSIONS_LISTED);
        for (const s of sessions) {
          const here = s.sessionId === this.session.id ? style.green(" (this one)") : "";
          this.say(`  ${s.sessionId}  ${formatLocalTime(s.updated)}  ${s.modelId ?? ""}${here}`);
        }
        return true;
      }
      case "trace":
        this.say(`trace: ${this.session.tracePath}`);
        return true;
      default:
        this.say(style.yellow(`unknown command /${name}: /help lists the commands`));
        return true;
    }
  }

  /** A mistake in a slash command's argument is one line, and the chat goes on. */
  private async guard(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (error instanceof UsageError || (error instanceof Error && error.name === "SetupError")) {
        this.say(this.style.red(error.message));
      } else throw error;
    }
  }

  /** Disposes the session (every process it started ends) and says how to come back. */
  exit(code: number): Promise<void> {
    // Every caller (a second Ctrl-C, a signal, the end of input) waits for the same one.
    this.exiting ??= this.dispose(code);
    return this.exiting;
  }

  private async dispose(code: number): Promise<void> {
    this.renderer.screen.close();
    await this.session.dispose();
    this.say(`${this.style.dim("trace:")} ${this.session.tracePath}`);
    this.say(this.style.dim(`resume with: penguin chat --resume ${this.session.id}`));
    this.onExit(code);
  }
}

/** `penguin chat`: prompts typed at a terminal (or piped one per line) run as tasks of one session. */
export async function chatCommand(opts: ChatOptions): Promise<number> {
  if (opts.resume !== undefined && opts.resume !== false) refuseWithResume(opts);
  existingWorkspace(opts.workspace ?? process.cwd());
  checkApprovalMode(opts.approve);
  parsePositive("--max-turns", opts.maxTurns, true);
  parseThinking(opts.thinking);
  budgetFrom(opts);
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
  if (process.stdin.isTTY === true && screenStream) {
    const style = createStyle(colourEnabled(screenStream));
    return chatOnTerminal(agent, opts, modelRef, resume, style, log, screenStream);
  }
  const style = createStyle(colourEnabled(process.stderr));
  return chatOnLines(agent, opts, modelRef, resume, style, log);
}

/** Lines piped on stdin: each line is a prompt or a slash command, run one after another. */
async function chatOnLines(
  agent: Agent,
  opts: ChatOptions,
  modelRef: string | undefined,
  resume: string | undefined,
  style: Style,
  log: CliLog,
): Promise<number> {
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: process.stderr,
    style,
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
  });
  let code = EXIT_COMPLETED;
  const ask = terminalAsk({
    interactive: false,
    noTerminal:
      process.stdin.isTTY === true ? "neither stdout nor stderr is a terminal" : "stdin is not a terminal",
    style,
    print: (line) => renderer.line(line),
    onCtrlC: () => {},
    question: async () => "",
  });
  const chat = new Chat(
    agent,
    opts,
    renderer,
    style,
    log,
    ask,
    (c) => {
      code = c;
    },
    modelRef,
  );
  await chat.open(resume);
  const onSigint = () => {
    if (!chat.ctrlC.press()) void chat.exit(EXIT_TASK_FAILED).then(() => process.exit(code));
  };
  process.on("SIGINT", onSigint);
  const lines = createInterface({ input: process.stdin, terminal: false });
  // SIGTERM or SIGHUP ends the chat: the running task stops as after Ctrl-C, the session is
  // disposed and the exit code is 128 + the signal's number; a second one exits at once.
  let endedBy: number | undefined;
  const offEndSignals = onEndSignals((signal, count) => {
    endedBy = signalExitCode(signal);
    if (count > 1) {
      const exitCode = endedBy;
      void chat.exit(exitCode).then(() => process.exit(exitCode));
      return;
    }
    if (chat.ctrlC.abort(`ended by ${signal}`)) chat.say(style.yellow(`${signal}: stopping the task…`));
    lines.close();
  });
  // A reader that closes our output ends the chat: the running task stops, no more lines are read.
  let outputClosed = false;
  let interrupted = false;
  whenOutputCloses((stream, error) => {
    outputClosed = true;
    if (chat.ctrlC.abort(`${stream} was closed`)) {
      interrupted = true;
      chat.say(style.yellow(closedOutputNote(stream, error)));
    }
    lines.close();
  });
  let exitTyped = false;
  try {
    for await (const line of lines) {
      if (outputClosed || endedBy !== undefined) break;
      const slash = parseSlash(line);
      if (slash) {
        if (!(await chat.slash(slash.name, slash.arg))) {
          exitTyped = true;
          break;
        }
      } else if (line.trim() !== "") {
        await chat.prompt(line);
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
  await chat.exit(endedBy ?? code);
  offEndSignals();
  if (endedBy !== undefined) return endedBy;
  if (interrupted) return EXIT_TASK_FAILED;
  // /exit ends the chat as it does at a terminal (0); at the end of the input a script learns
  // how the last task went.
  if (exitTyped) return code;
  return chat.lastStatus === "completed" ? code : EXIT_TASK_FAILED;
}

/** A person at a terminal: a line editor, a live status line, questions, steering, Ctrl-C and Ctrl-O. */
async function chatOnTerminal(
  agent: Agent,
  opts: ChatOptions,
  modelRef: string | undefined,
  resume: string | undefined,
  style: Style,
  log: CliLog,
  screenStream: NodeJS.WriteStream,
): Promise<number> {
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });
  // Prompts typed while no task runs wait here, in order.
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let idleCtrlC = false;
  let chat: Chat | undefined;

  const terminal = new ChatTerminal(process.stdin, screenStream, {
    line: (text) => {
      idleCtrlC = false;
      if (chat?.ctrlC.taskRunning && parseSlash(text) === undefined && text.trim() !== "") {
        if (chat.session.steer(text)) {
          renderer.line(style.dim(`  ↳ steering: ${text} (goes with the next model request)`));
          return;
        }
      }
      queue.push(text);
      wake?.();
    },
    ctrlC: () => {
      if (chat?.ctrlC.press()) return;
      if (terminal.typed !== "") {
        terminal.clearTyped();
        return;
      }
      if (idleCtrlC) {
        closed = true;
        wake?.();
        return;
      }
      idleCtrlC = true;
      renderer.line(style.dim("(press Ctrl-C again, or type /exit, to quit)"));
    },
    ctrlO: () => {
      const last = renderer.lastFoldedOutput;
      if (!last) return;
      renderer.line(style.bold(`── ${last.title} (whole output)`));
      renderer.line(last.text.replace(/\n$/, ""));
      renderer.line(style.dim("──"));
    },
    close: () => {
      closed = true;
      wake?.();
    },
  });
  const screen = new Screen({ out: process.stdout, err: screenStream, live: true, bottom: terminal });
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: screenStream,
    style,
    screen,
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
    expandHint: "Ctrl-O shows the whole output",
  });
  const ask = terminalAsk({
    interactive: true,
    style,
    print: (line) => renderer.line(line),
    onAsk: (call) => renderer.markShown(call.payload.tool_call_id),
    onCtrlC: () => chat?.ctrlC.press(),
    question: terminal.ask,
  });
  // The terminal is open (raw mode) from here: anything that fails before the chat runs closes
  // it, or the error would leave a terminal that no key can end.
  let current: Chat;
  try {
    current = new Chat(
      agent,
      opts,
      renderer,
      style,
      log,
      ask,
      (code) => {
        terminal.close();
        finished(code);
      },
      modelRef,
    );
    chat = current;
    await current.open(resume);
  } catch (error) {
    terminal.close();
    throw error;
  }
  // The terminal's line discipline is off (raw mode): Ctrl-C reaches us as a key, not a signal.
  // A SIGINT still arrives when someone sends it with kill; treat it like the key.
  const onSigint = () => {
    if (!current.ctrlC.press()) void current.exit(EXIT_TASK_FAILED);
  };
  process.on("SIGINT", onSigint);
  // SIGTERM or SIGHUP (the terminal was closed) ends the chat: the running task stops as after
  // Ctrl-C, the session is disposed and the exit code is 128 + the signal's number.
  let endedBy: number | undefined;
  const offEndSignals = onEndSignals((signal, count) => {
    endedBy = signalExitCode(signal);
    if (count > 1) {
      void current.exit(endedBy);
      return;
    }
    current.ctrlC.abort(`ended by ${signal}`);
    closed = true;
    wake?.();
  });
  // A reader that closes our output (`penguin chat | head`) ends the chat, as Ctrl-D does; a task
  // it interrupts makes the exit code say so.
  let interrupted = false;
  whenOutputCloses((stream, error) => {
    if (current.ctrlC.abort(`${stream} was closed`)) {
      interrupted = true;
      current.say(style.yellow(closedOutputNote(stream, error)));
    }
    closed = true;
    wake?.();
  });
  screen.refresh();

  void (async () => {
    for (;;) {
      while (queue.length === 0 && !closed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (closed) break;
      const text = queue.shift() as string;
      const slash = parseSlash(text);
      if (slash) {
        if (!(await current.slash(slash.name, slash.arg))) break;
      } else if (text.trim() !== "") {
        await current.prompt(text);
      }
      screen.refresh();
    }
    await current.exit(endedBy ?? (interrupted ? EXIT_TASK_FAILED : EXIT_COMPLETED));
  })().catch((error: unknown) => {
    process.stderr.write(`penguin: internal error: ${errorStack(error)}\n`);
    void current.exit(EXIT_TASK_FAILED);
  });

  const code = await done;
  process.off("SIGINT", onSigint);
  offEndSignals();
  return code;
}
