import type { Agent, OnAsk, Session } from "@penguin/core";
import type { ApprovalMode } from "@penguin/state";
import { listSessions } from "@penguin/trace";
import { traceLocationOf } from "../data-root.js";
import { EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import type { CliLog } from "../logging.js";
import { resolveModelRef } from "../model-choice.js";
import { CTRL_C, type Question } from "../prompts/approval-prompt.js";
import { formatLocalTime, tildePath } from "../render/format.js";
import type { Style } from "../render/style.js";
import type { TerminalRenderer } from "../render/terminal-renderer.js";
import { jobsLeftRunning, resumeReport } from "../session/resume-report.js";
import { APPROVED_PLAN, runTask } from "../session/run-task.js";
import {
  approvalPolicy,
  budgetFrom,
  checkApprovalMode,
  existingWorkspace,
  parsePositive,
  parseThinking,
  type SessionFlags,
} from "../session/session-flags.js";
import { sessionSetup } from "../session/session-setup.js";
import { CtrlC } from "../terminal/ctrl-c.js";
import {
  modeOfPlanAnswer,
  modeOfPlanApproval,
  PLAN_APPROVAL_HINT,
  PLAN_APPROVAL_QUESTION,
} from "./chat-plan.js";
import { helpLines } from "./chat-slash.js";

export interface ChatOptions extends SessionFlags {
  model?: string;
  /** `--resume` alone is `true`: the newest session. */
  resume?: string | boolean;
  fullOutput?: boolean;
  showThinking?: boolean;
  verbose?: boolean;
  dataDir?: string;
}

/** What both front ends (a terminal, or lines piped on stdin) start a chat with. */
export interface ChatStart {
  agent: Agent;
  opts: ChatOptions;
  /** `--model` or `$PENGUIN_MODEL`, already checked; undefined: the project's default model. */
  modelRef: string | undefined;
  /** The session to resume; undefined: a new one. */
  resume: string | undefined;
  style: Style;
  log: CliLog;
}

/** How many sessions `/sessions` lists. */
export const SESSIONS_LISTED = 10;

/**
 * The state of one chat: its session (replaced by /clear, /resume and /model), the approval mode
 * and the renderer. Both front ends (a terminal, or lines piped on stdin) drive it.
 */
export class Chat {
  session!: Session;
  mode: string;
  /** The mode `/plan` switches back to, and a plan runs in by default. */
  private modeBeforePlan = "allow-all";
  /**
   * The model and workspace of the current session (its session_meta once one is open): /clear
   * and /model start the next session with them, so a resumed session's own carry over.
   */
  private modelRef: string | undefined;
  private workspaceDir: string;
  /** The current session's execution profile (--profile at first), kept by /clear and /model. */
  private executionProfile: string | undefined;
  readonly ctrlC: CtrlC;
  private exiting: Promise<void> | undefined;
  lastStatus = "completed";

  private readonly agent: Agent;
  private readonly opts: ChatOptions;
  private readonly style: Style;
  private readonly log: CliLog;

  constructor(
    start: ChatStart,
    private readonly renderer: TerminalRenderer,
    private readonly ask: Parameters<typeof approvalPolicy>[1] | undefined,
    private readonly onExit: (code: number) => void,
    /** Answers the agent's questions to the user (`ask`); absent: nobody can. */
    private readonly answerer?: OnAsk,
    /** Asks the person a question (whether to approve a plan); absent: nobody can be asked. */
    private readonly question?: Question,
  ) {
    ({ agent: this.agent, opts: this.opts, style: this.style, log: this.log } = start);
    this.mode = start.opts.approve;
    if (this.mode !== "plan") this.modeBeforePlan = this.mode;
    this.modelRef = start.modelRef;
    this.workspaceDir = start.opts.workspace ?? process.cwd();
    this.executionProfile = start.opts.profile;
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
    const leftRunning = resume !== undefined ? jobsLeftRunning(this.agent, resume) : [];
    this.session =
      resume !== undefined
        ? await this.agent.resumeSession(resume, this.sessionOptions)
        : await this.agent.createSession({
            workspaceDir: existingWorkspace(this.workspaceDir),
            model: this.modelRef,
            ...(this.executionProfile !== undefined ? { executionProfile: this.executionProfile } : {}),
            ...this.sessionOptions,
          });
    if (previous) await previous.dispose();
    ({
      modelRef: this.modelRef,
      workspaceDir: this.workspaceDir,
      executionProfile: this.executionProfile,
    } = sessionSetup(this.session));
    this.log.debug({ session_id: this.session.id, resumed: resume !== undefined }, "chat session");
    const verb = resume !== undefined ? "resumed" : "new";
    this.say(
      this.style.dim(
        `${verb} session ${this.session.id} in ${tildePath(this.session.workspaceDir)} · approve: ${this.mode} · /help for commands`,
      ),
    );
    if (resume !== undefined)
      for (const line of await resumeReport(this.session, leftRunning, this.style)) this.say(line);
  }

  /** Runs one prompt as a task of the current session (in plan mode, then asks about its plan). */
  async prompt(text: string | typeof APPROVED_PLAN): Promise<void> {
    const approve = approvalPolicy(this.mode, this.ask ?? (async () => "deny"));
    let proposed = false;
    try {
      const result = await runTask(this.session, text, {
        approve,
        ...(this.answerer ? { onAsk: this.answerer } : {}),
        signal: this.ctrlC.startTask(),
        maxTurns: parsePositive("--max-turns", this.opts.maxTurns, true),
        renderer: this.renderer,
        log: this.log,
      });
      this.lastStatus = result.status;
      proposed = result.proposed !== undefined;
    } finally {
      this.ctrlC.endTask();
    }
    this.renderer.finish(undefined);
    if (proposed) await this.askAboutPlan();
  }

  /** "Approve the plan?": a mode runs it at once; anything else keeps planning. */
  private async askAboutPlan(): Promise<void> {
    if (!this.question) {
      this.say(this.style.dim(PLAN_APPROVAL_HINT));
      return;
    }
    const answer = await this.question(PLAN_APPROVAL_QUESTION);
    const mode = answer === CTRL_C ? undefined : modeOfPlanAnswer(answer);
    if (mode === undefined) {
      this.say(this.style.dim("still in plan mode: type what to change in the plan"));
      return;
    }
    await this.carryOutPlan(mode);
  }

  /** Leaves plan mode for `mode` and runs the latest proposed plan in it. */
  private async carryOutPlan(mode: ApprovalMode): Promise<void> {
    if (this.session.plan.proposed === undefined) {
      this.say(this.style.yellow("there is no proposed plan yet: /plan, then ask for one"));
      return;
    }
    this.mode = mode;
    this.say(this.style.dim(`approval mode: ${mode}; carrying out the plan`));
    await this.prompt(APPROVED_PLAN);
  }

  /** `/plan`: plan mode on (remembering the mode it leaves) or back off; `/plan approve [mode]`. */
  private async plan(arg: string): Promise<void> {
    const [word, ...rest] = arg.split(/\s+/);
    if (word === "approve") {
      await this.guard(() => this.carryOutPlan(modeOfPlanApproval(rest.join(" "), this.modeBeforePlan)));
      return;
    }
    if (word) {
      this.say(this.style.yellow("/plan takes nothing (switch plan mode) or approve [mode]"));
      return;
    }
    if (this.mode === "plan") this.mode = this.modeBeforePlan;
    else {
      this.modeBeforePlan = this.mode;
      this.mode = "plan";
    }
    this.say(`approval mode: ${this.mode}`);
  }

  /** Compacts the session's context now; Ctrl-C interrupts it (the context then stays as it was). */
  async compact(): Promise<void> {
    this.renderer.screen.start();
    try {
      for await (const message of this.session.compact({ signal: this.ctrlC.startTask() })) {
        this.log.message(message);
        this.renderer.render(message);
      }
    } finally {
      this.ctrlC.endTask();
      this.renderer.screen.stop();
    }
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
            const mode = checkApprovalMode(arg);
            if (mode === "plan" && this.mode !== "plan") this.modeBeforePlan = this.mode;
            this.mode = mode;
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
      case "plan":
        await this.plan(arg);
        return true;
      case "compact":
        await this.compact();
        return true;
      case "trace":
        this.say(`trace: ${this.session.tracePath}`);
        return true;
      case "notify":
        this.notify(arg);
        return true;
      default:
        this.say(style.yellow(`unknown command /${name}: /help lists the commands`));
        return true;
    }
  }

  /**
   * `/notify <type> <summary>`: a notice from outside, as `session.notify` takes it. The chat runs
   * no wake turns (it has no `onWake` listener): a notice reaches the model with the next prompt.
   */
  private notify(arg: string): void {
    const match = /^(\S+)\s+([\s\S]+)$/.exec(arg);
    if (!match) {
      this.say(
        this.style.yellow("/notify takes a type and a summary: /notify deploy.done version 7 is live"),
      );
      return;
    }
    const outcome = this.session.notify({ type: match[1] ?? "", summary: match[2] ?? "" });
    if (outcome.status === "refused") {
      this.say(this.style.yellow(`notice refused: ${outcome.message}`));
      return;
    }
    this.say(
      this.style.dim(
        `notice ${outcome.noticeId} taken by the event handler ${outcome.handler}: the model reads it with your next prompt`,
      ),
    );
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
