import type {
  GoalOptions,
  NoticeInput,
  NotifyOutcome,
  ResolveOutcome,
  ResolveStepInput,
  RevertOptions,
  RevertOutcome,
  RunInput,
  Session,
  UserQuestion,
  WakeTurn,
} from "@penguin/core";
import {
  type OmniMessage,
  type OpenPartialStream,
  PartialAggregator,
  type TokenUsagePayload,
} from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";
import type { Logger } from "pino";
import type { SessionState } from "../db/schema.js";
import type { ServerMetrics, SessionMetricsFeed } from "../metrics/prometheus.js";
import type { SessionStore } from "../sessions/store.js";
import type { EventHub, PublishInput } from "../sse/event-hub.js";
import { databaseModePolicy, type PendingApproval, PendingApprovals } from "./approvals.js";
import { publishServerEvent, serverEvent, sessionChannel } from "./channels.js";
import { PendingQuestions } from "./questions.js";
import type { StartOutcome, TaskState } from "./task-state.js";
import { WriteQueue } from "./write-queue.js";

export type { RuntimeState, Started, StartOutcome, StartRefusal, TaskState } from "./task-state.js";

/** What runs on a session: a task, or a compaction of its context (one at a time, never both). */
type Activity = "task" | "compaction";

/** The options of a task started through the API. */
export interface TaskOptions {
  /** Runs the task in goal mode (`session.run(input, { goal })`): it ends with `goal_finished`. */
  goal?: GoalOptions;
}

export interface SessionRuntimeDeps {
  hub: EventHub;
  store: SessionStore;
  logger: Logger;
  /** Reopens the SDK session from its trace (the runtime was released, or the server restarted). */
  openSession(sessionId: string): Promise<Session>;
  /**
   * A task or a compaction started or ended (for the owner's `/api/events` channel). The stored
   * state says `running` for both: it tells the session is busy; `task_state` tells which.
   */
  onStateChange(state: SessionState): void;
  /** Called when the runtime has been idle for `idleReleaseMs`; the manager disposes it. */
  onIdle(): void;
  idleReleaseMs: number;
  /** The server's Prometheus metrics, fed with what the session streams (absent: not collected). */
  metrics?: ServerMetrics;
}

/** A plan was to be approved, but the session has not proposed one. */
class NoProposedPlan extends Error {}

/** The text the engine gives the model for a steering message (see core's markers). */
const STEERING_OPENING = "[user_steering]";

/**
 * The live side of one server session: its SDK session (opened on demand, released when idle),
 * the one task that may run, the calls waiting for a human, and the partial state of the running
 * stream. Everything the session yields is published on its hub channel as it happens.
 */
export class SessionRuntime {
  readonly approvals: PendingApprovals;
  /** The agent's questions to the user (`ask`) that wait for an answer through the API. */
  readonly questions: PendingQuestions;
  #session: Session | undefined;
  #opening: Promise<Session> | undefined;
  #task: { controller: AbortController; done: Promise<void>; activity: Activity } | undefined;
  /** What is being started (the SDK session may still be reopening from its trace). */
  #starting: Activity | undefined;
  #disposed = false;
  #pendingSteering = 0;
  #aggregator = new PartialAggregator();
  readonly #usageWrites = new WriteQueue((error) =>
    this.deps.logger.error({ err: error, session_id: this.sessionId }, "usage not recorded"),
  );
  readonly #stateWrites = new WriteQueue((error) =>
    this.deps.logger.error({ err: error, session_id: this.sessionId }, "could not store the session state"),
  );
  #idleTimer: NodeJS.Timeout | undefined;
  /** Decisions on uncertain calls being recorded now (they keep the session open). */
  #resolving = 0;
  /** A revert of file changes runs: no task or compaction starts meanwhile. */
  #reverting = false;

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionRuntimeDeps,
    session?: Session,
  ) {
    this.#session = session;
    if (session) this.#takeWakes(session);
    this.approvals = new PendingApprovals((pending) =>
      publishServerEvent(deps.hub, this.channel, "approval_request", approvalFields(pending)),
    );
    this.questions = new PendingQuestions((pending) =>
      publishServerEvent(deps.hub, this.channel, "question_request", { ...pending }),
    );
    this.#scheduleRelease();
  }

  get channel(): string {
    return sessionChannel(this.sessionId);
  }

  /** A task or a compaction is starting or running, or a revert runs. */
  get busy(): boolean {
    return this.#starting !== undefined || this.#task !== undefined || this.#reverting;
  }

  /** The SDK session, when it is open (undefined after a release until the next task). */
  get session(): Session | undefined {
    return this.#session;
  }

  taskState(): TaskState {
    const activity = this.#task?.activity;
    const state = activity === "compaction" ? "compacting" : activity === "task" ? "running" : "idle";
    return { state, pendingSteering: this.#pendingSteering };
  }

  /** The streams of the running task that have started and not finished, with their content so far. */
  partialSnapshot(): OpenPartialStream[] {
    return this.#aggregator.snapshot();
  }

  /**
   * What a client that connects now needs before the live events: the task state, waiting calls
   * and waiting questions.
   */
  snapshotEvents(): PublishInput[] {
    return [
      serverEvent("task_state", { ...this.taskState() }),
      ...this.approvals.list().map((pending) => serverEvent("approval_request", approvalFields(pending))),
      ...this.questions.list().map((pending) => serverEvent("question_request", { ...pending })),
    ];
  }

  /**
   * Starts a task; `busy` while one is starting or running ("one task at a time per session"),
   * `compacting` while a compaction is. Throws when the session cannot be reopened from its trace.
   */
  start(input: RunInput, options: TaskOptions = {}): Promise<StartOutcome> {
    return this.#begin("task", async (session, signal) =>
      session.run(input, {
        approve: await this.#approver(),
        onAsk: this.#onAsk,
        signal,
        ...(options.goal ? { goal: options.goal } : {}),
      }),
    );
  }

  /**
   * Carries out the plan the session proposed in plan mode, in `mode`: `switchMode` stores that
   * mode first (nothing else can start meanwhile), then the task runs as the SDK's `approvePlan`
   * runs it. `no_plan` when the session has not proposed one; `busy` or `compacting` as `start`.
   */
  async approvePlan(
    mode: Exclude<ApprovalMode, "plan">,
    switchMode: () => Promise<void>,
  ): Promise<StartOutcome | "no_plan"> {
    try {
      return await this.#begin("task", async (session, signal) => {
        if (!session.plan.proposed?.trim()) throw new NoProposedPlan();
        await switchMode();
        return session.approvePlan({ approve: await this.#approver(mode), onAsk: this.#onAsk, signal });
      });
    } catch (error) {
      if (error instanceof NoProposedPlan) return "no_plan";
      throw error;
    }
  }

  /**
   * Hands a notice to the session's event handlers (reopening the session from its trace when it
   * was released). A `wake` handler's notice starts a task here when the session is idle: see
   * `#takeWakes`. Throws when the session cannot be reopened.
   */
  async notify(input: NoticeInput): Promise<NotifyOutcome> {
    if (this.#disposed) throw new Error(`session ${this.sessionId} is shutting down`);
    const session = await this.#ensureSession();
    const outcome = session.notify(input);
    // A queued notice keeps the session open until a task delivers it (see #scheduleRelease).
    if (!this.busy) this.#scheduleRelease();
    return outcome;
  }

  /**
   * Records the user's decision on an uncertain call through the SDK session (reopening it from
   * its trace when it was released): the same checks as the agent's resolve_execution_activity,
   * the decision recorded `by: "user"` with what Penguin verified. Throws when the session cannot
   * be reopened.
   */
  async resolve(input: ResolveStepInput): Promise<ResolveOutcome> {
    if (this.#disposed) throw new Error(`session ${this.sessionId} is shutting down`);
    // The session must stay open until the decision is in its trace: no release meanwhile.
    this.#resolving += 1;
    this.#clearIdleTimer();
    try {
      const session = await this.#ensureSession();
      return await session.resolve(input);
    } finally {
      this.#resolving -= 1;
      if (!this.busy) this.#scheduleRelease();
    }
  }

  /**
   * Reverts (or previews the revert of) a change set through the open SDK session, which records
   * it in its trace; `busy` while a task, a compaction or another revert runs. The caller makes
   * sure the session is open (`session`): a released one is reverted from its trace instead.
   */
  async revert(changeSet: string, options: RevertOptions): Promise<RevertOutcome | undefined | "busy"> {
    const session = this.#session;
    if (this.busy || !session) return "busy";
    if (this.#disposed) throw new Error(`session ${this.sessionId} is shutting down`);
    this.#reverting = true;
    this.#clearIdleTimer();
    try {
      return await session.revert(changeSet, options);
    } finally {
      this.#reverting = false;
      this.#scheduleRelease();
    }
  }

  /** The agent's questions to the user wait for POST .../questions/:questionId/answer. */
  readonly #onAsk = (question: UserQuestion) => this.questions.ask(question);

  /**
   * Every tool call is decided by the session's approval mode, as the database has it now; the
   * task starts in the stored mode (or `mode`, just stored), so a plan-mode session plans.
   */
  async #approver(mode?: ApprovalMode) {
    const readMode = () => this.deps.store.approvalMode(this.sessionId);
    return databaseModePolicy(
      readMode,
      (call, request) => this.approvals.ask(call, this.#originOf(call.payload.tool_call_id), request.signal),
      mode ?? (await readMode()) ?? "deny-all",
    );
  }

  /** Wake turns run as tasks of this runtime: published on the session's stream, approved alike. */
  #takeWakes(session: Session): void {
    session.onWake((turn: WakeTurn) => {
      this.#begin("task", async (_session, signal) =>
        turn.run({ approve: await this.#approver(), onAsk: this.#onAsk, signal }),
      ).catch((error: unknown) =>
        this.deps.logger.error({ err: error, session_id: this.sessionId }, "wake turn not started"),
      );
    });
  }

  /**
   * Compacts the session's context now (a `manual` compaction), its events published like a
   * task's; `busy` while a task runs, `compacting` while another compaction does. `abort` stops it
   * (the context stays as it was). Throws when the session cannot be reopened from its trace.
   */
  compact(): Promise<StartOutcome> {
    return this.#begin("compaction", (session, signal) => session.compact({ signal }));
  }

  async #begin(
    activity: Activity,
    open: (
      session: Session,
      signal: AbortSignal,
    ) => AsyncIterable<OmniMessage> | Promise<AsyncIterable<OmniMessage>>,
  ): Promise<StartOutcome> {
    const running = this.#task?.activity ?? this.#starting;
    if (running !== undefined) return running === "compaction" ? "compacting" : "busy";
    if (this.#reverting) return "busy";
    if (this.#disposed) throw new Error(`session ${this.sessionId} is shutting down`);
    this.#starting = activity;
    this.#clearIdleTimer();
    try {
      const session = await this.#ensureSession();
      const controller = new AbortController();
      const stream = await open(session, controller.signal);
      this.#aggregator.reset();
      this.#pendingSteering = 0;
      const task = { controller, done: Promise.resolve(), activity };
      this.#task = task;
      const began = this.taskState();
      this.#publishTaskState();
      this.deps.onStateChange("running");
      const stored = this.#storeState("running");
      task.done = this.#pump(stream);
      // Once the start is answered, the session list says "running" (a pooled database may
      // otherwise answer the client's next request before this write lands).
      await stored;
      return { began };
    } catch (error) {
      this.#scheduleRelease();
      throw error;
    } finally {
      this.#starting = undefined;
    }
  }

  /** Queues steering for the running task; false when no task runs. */
  steer(text: string): boolean {
    if (this.#task?.activity !== "task" || !this.#session?.steer(text)) return false;
    this.#pendingSteering += 1;
    this.#publishTaskState();
    return true;
  }

  /**
   * Interrupts the running task (or compaction: the context stays as it was) and every running
   * subagent, background ones included: every waiting call is denied, the tasks end (`task_end`
   * aborted), then every command the session and its subagents started is ended. False when
   * neither the session nor a subagent was running.
   */
  async abort(): Promise<boolean> {
    const reason = "the task was aborted through the API";
    const task = this.#task;
    const childrenRunning = this.#runningChildren();
    task?.controller.abort(new Error(reason));
    this.approvals.denyAll("the task was aborted");
    // A background child (its run_subagent window elapsed) is not stopped by the parent's abort.
    await Promise.all([task?.done, this.#session?.stopSubagents(reason)]);
    await this.#endProcesses();
    return task !== undefined || childrenRunning > 0;
  }

  /** Ends everything: the task, waiting approvals, every process, the SDK session. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#clearIdleTimer();
    const task = this.#task;
    task?.controller.abort(new Error("the session was closed on the server"));
    this.approvals.denyAll("the session was closed on the server");
    const session = this.#session ?? (await this.#opening?.catch(() => undefined));
    await session?.dispose();
    await task?.done;
    await this.#usageWrites.drained();
    await this.#stateWrites.drained();
  }

  async #ensureSession(): Promise<Session> {
    if (this.#session) return this.#session;
    this.#opening ??= this.deps.openSession(this.sessionId).finally(() => {
      this.#opening = undefined;
    });
    const session = await this.#opening;
    if (this.#session !== session) {
      this.#session = session;
      this.#takeWakes(session);
    }
    return session;
  }

  async #pump(stream: AsyncIterable<OmniMessage>): Promise<void> {
    // The stream must be iterated whatever happens here: only its own end frees the SDK session.
    const session = this.#session;
    const feed =
      session && this.deps.metrics
        ? this.deps.metrics.session(
            session.meta,
            session.tools.map((tool) => tool.name),
          )
        : undefined;
    try {
      for await (const message of stream) this.#observe(message, feed);
    } catch (error) {
      this.deps.logger.error({ err: error, session_id: this.sessionId }, "session task failed");
    } finally {
      this.approvals.denyAll("the task ended");
      this.#task = undefined;
      this.#pendingSteering = 0;
      // The stream says at once that the task ended, whatever the database takes to write it (a
      // client that saw task_end must not read "running" next).
      this.#publishTaskState();
      // Queued now, before a next task can queue its "running"; after the usage writes, so a
      // session listed idle shows its whole usage.
      await this.#storeState("idle", this.#usageWrites.drained());
      // The user's channel announces what the session list now says, unless a next task began.
      if (this.#task === undefined) this.deps.onStateChange("idle");
      this.#scheduleRelease();
    }
  }

  /** Writes the session's state to the index after `after`, in the order of the calls (see WriteQueue). */
  #storeState(state: SessionState, after?: Promise<void>): Promise<void> {
    return this.#stateWrites.push(() => this.deps.store.setState(this.sessionId, state), after);
  }

  #observe(message: OmniMessage, feed: SessionMetricsFeed | undefined): void {
    this.#aggregator.push(message);
    feed?.push(message);
    this.deps.hub.publish(this.channel, { data: JSON.stringify(message) });
    if (message.type === "event_msg" && message.payload.type === "token_usage") {
      // The parent's requests and, tagged with origin, its subagents' requests: each counted once.
      const usage = message.payload as TokenUsagePayload;
      void this.#usageWrites.push(() =>
        this.deps.store.recordUsage(this.sessionId, usage.request, usage.request_cost_usd),
      );
      return;
    }
    if (
      this.#pendingSteering > 0 &&
      message.origin === undefined &&
      message.type === "model_msg" &&
      message.payload.type === "text" &&
      message.payload.role === "user" &&
      message.payload.text.startsWith(STEERING_OPENING)
    ) {
      this.#pendingSteering -= 1;
      this.#publishTaskState();
    }
  }

  /** A subagent's call waits in that subagent's approval watch: its session id is the origin. */
  #originOf(toolCallId: string): string[] | undefined {
    const child = this.#session?.subagents.find((subagent) =>
      subagent.pendingApprovals.some((pending) => pending.toolCallId === toolCallId),
    );
    return child ? [child.sessionId] : undefined;
  }

  async #endProcesses(): Promise<void> {
    const processes = this.#session?.processes;
    if (!processes) return;
    await Promise.all(processes.liveIds().map((id) => processes.kill(id)));
  }

  #publishTaskState(): void {
    publishServerEvent(this.deps.hub, this.channel, "task_state", { ...this.taskState() });
  }

  #clearIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  /** Subagents whose task runs, in the foreground of a call or in the background. */
  #runningChildren(): number {
    return this.#session?.subagents.filter((child) => child.status === "running").length ?? 0;
  }

  /**
   * Idle means no task, no running subagent, no running command and no notice waiting; a session
   * with a working child, a live command or a pending notice stays open (releasing it would end
   * them, or lose the notice).
   */
  #scheduleRelease(): void {
    this.#clearIdleTimer();
    if (this.#disposed) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      const working =
        this.#runningChildren() > 0 ||
        (this.#session?.processes.liveIds().length ?? 0) > 0 ||
        (this.#session?.pendingNotices ?? 0) > 0 ||
        this.#resolving > 0;
      if (this.busy || working) return this.#scheduleRelease();
      this.deps.onIdle();
    }, this.deps.idleReleaseMs);
    this.#idleTimer.unref();
  }
}

function approvalFields(pending: PendingApproval): Record<string, unknown> {
  return {
    tool_call: pending.tool_call,
    ...(pending.origin ? { origin: pending.origin } : {}),
    requested_at: pending.requested_at,
    ...(pending.suggested_prefix ? { suggested_prefix: pending.suggested_prefix } : {}),
  };
}
