import type { OmniMessage, SessionMetaPayload, ToolSpec } from "@penguin/protocol";
import type { GuardrailRule } from "@penguin/state";
import type { SessionPlan, TraceWriter } from "@penguin/trace";
import { approverOf } from "../approval/approver-of.js";
import type { SessionRules } from "../approval/session-rules.js";
import { type AgentLoopOptions, runTask, SteeringQueue, steeringMessage } from "../engine/agent-loop.js";
import { type CompactionHooks, compactContext } from "../engine/compaction/compact.js";
import type { ModelPrices, SessionBudget } from "../engine/limits.js";
import type { RetryPolicy } from "../engine/retry.js";
import type { ConversationState } from "../engine/types.js";
import { usageEvent } from "../engine/usage-event.js";
import type { Environment } from "../environment/environment.js";
import { checkGoalOptions, GoalRun } from "../goal/index.js";
import type { HookRunner } from "../hooks/runner.js";
import type { McpToolset } from "../mcp/toolset.js";
import type { ModelAdapter, ThinkingLevel } from "../models/types.js";
import type { AgentCatalog } from "../named-agents/catalog.js";
import type { NoticeBoard, NoticeInput, NotifyOutcome } from "../notices/index.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { UserAnswerers } from "../tools/messaging/index.js";
import type { SubagentInfo, SubagentManager } from "../tools/subagent/index.js";
import type { ToolCallRedaction } from "./call-redaction.js";
import { inputMessages, type RunInput } from "./input.js";
import { readUnlessAbandoned } from "./read-unless-abandoned.js";
import type { CompactOptions, RunOptions } from "./run-options.js";
import * as changes from "./session-changes.js";
import { sessionCompactionHooks } from "./session-compaction.js";
import * as retained from "./session-executions.js";
import { connectMcp } from "./session-mcp-connect.js";
import * as plan from "./session-plan.js";
import * as recovery from "./session-recovery.js";
import { type WakeListener, type WakeRunOptions, WakeTurns } from "./session-wake.js";
import { checkThinkingLevel } from "./thinking.js";
import type { RecoveryNotice } from "./uncertain-notice.js";

export type { CompactOptions, RunOptions } from "./run-options.js";

/** Everything a session is made of; built by `Agent.createSession` / `Agent.resumeSession`. */
export interface SessionParts {
  id: string;
  model: ModelAdapter;
  environment: Environment;
  toolSpecs: ToolSpec[];
  systemPrompt: string;
  /** See `Session.meta`. */
  meta: OmniMessage<SessionMetaPayload>;
  thinkingLevel: ThinkingLevel;
  /** The level of the task now running, which the subagent tools give the children they start. */
  taskThinking: { level: ThinkingLevel };
  workspaceDir: string;
  scratchpadDir: string;
  trace: TraceWriter;
  state: ConversationState;
  rules: SessionRules;
  guardrail: readonly GuardrailRule[];
  maxTurns?: number;
  maxOutputTokens?: number;
  contextWindow?: number;
  prices?: ModelPrices;
  budget?: SessionBudget;
  retry?: RetryPolicy;
  /**
   * Records already in the trace that the next run yields first: a new session's header, and
   * steering that arrived after the last task's end was yielded.
   */
  header: OmniMessage[];
  /** Who answers the root agent's questions to the user (`ask`); a subagent asks its parent. */
  answerers?: UserAnswerers;
  /** The subagent sessions of a top-level session (a subagent has none: depth is capped at 1). */
  subagents?: SubagentManager;
  /** The retained work of the session's agents (see sdk/session-executions.ts). */
  executions: retained.ExecutionSource;
  /** The named agents the session can start (`.agents/agents/<name>.md`). */
  agents: AgentCatalog;
  /** The notices waiting for the model, and the handlers that take them (`.agents/events/`). */
  notices: NoticeBoard;
  /** The agent's MCP servers, connected when the first task starts (absent: none configured). */
  mcp?: McpToolset;
  /** The hooks around tool calls (their set may be empty). */
  hooks?: HookRunner;
  /** Secrets out of the model's tool-call arguments before they are traced or streamed. */
  callRedaction?: ToolCallRedaction;
  journal: recovery.JournalAccess;
  /** A resumed session's notice of what a crash left, queued when its first task starts. */
  recoveryNotice?: RecoveryNotice;
  /** `compaction` of the agent's config, its prompt filled in; absent: the context is never compacted. */
  compaction?: CompactionHooks["settings"];
}

/**
 * One conversation with the model in a workspace, recorded in one trace. One task runs at a time;
 * the context carries over from task to task, and the session can be resumed from its trace.
 */
export class Session {
  readonly id: string;
  private readonly steering = new SteeringQueue();
  private running: AbortController | undefined;
  /** What `running` is: a task, or a compaction (one at a time, never both). */
  private activity: "task" | "compaction" = "task";
  /** Whether the running task's stream has been read yet (a `run` may be called and never read). */
  private started = false;
  private disposed = false;
  private readonly wakes: WakeTurns;

  constructor(private readonly parts: SessionParts) {
    this.id = parts.id;
    const idle = () => !this.running && !this.disposed;
    this.wakes = new WakeTurns(parts.notices, { idle, runWake: (options) => this.start(undefined, options) });
  }

  /**
   * The session's session_meta record (model, workspace, agent, system prompt): the one its trace
   * opened with, or for a resumed session the latest one recorded.
   */
  get meta(): OmniMessage<SessionMetaPayload> {
    return this.parts.meta;
  }

  /** The trace file records go to now. */
  get tracePath(): string {
    return this.parts.trace.path;
  }

  get workspaceDir(): string {
    return this.parts.workspaceDir;
  }

  /** The agent's current directory: the workspace until change_directory moves it. */
  get currentDirectory(): string {
    return this.parts.environment.currentDir;
  }

  get scratchpadDir(): string {
    return this.parts.scratchpadDir;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /**
   * How hard the model thinks in this session's tasks (a run may override it); subagents
   * inherit it.
   */
  get thinkingLevel(): ThinkingLevel {
    return this.parts.thinkingLevel;
  }

  /**
   * The command sessions exec_command started in this session (not its subagents'): a front end
   * lists them and may kill one; `dispose` ends them all.
   */
  get processes(): ProcessManager {
    return this.parts.environment.processes;
  }

  /** The tools the model is offered. */
  get tools(): ToolSpec[] {
    return this.parts.toolSpecs;
  }

  /** The named agents the session knows, by name: change_directory adds a directory's. */
  get agents(): AgentCatalog {
    return this.parts.agents;
  }

  /** The subagents run_subagent started (kept ones, oldest first), with their status. */
  get subagents(): SubagentInfo[] {
    return this.parts.subagents?.list() ?? [];
  }

  /** The executions (one task of one agent each) of this session's tree that pass `filter`. */
  executions(filter?: retained.ExecutionFilter): retained.ExecutionList {
    return retained.executionsOf(this.parts.executions, filter);
  }

  /** One page of one part of execution `id` (`root/2`, `sub_1/1`); reading resumes nothing. */
  execution(id: string, part?: retained.ExecutionPart, page?: number): retained.ExecutionRead {
    return retained.readExecution(this.parts.executions, id, part, page);
  }

  /**
   * Interrupts every subagent's running task and ends every command the subagents run, and
   * resolves once both are done. The subagents stay kept, so a follow-up prompt can continue one.
   * Aborting a task stops only its foreground children: a front end's "stop everything" calls
   * this too, since background children outlive the parent's task.
   */
  async stopSubagents(reason = "the subagents were stopped"): Promise<void> {
    await this.parts.subagents?.stopAll(reason);
  }

  /**
   * Runs one task. Yields every message as it happens: what the trace gets (complete messages
   * and events, each written as it is yielded) plus streaming partials. Ends with `task_end`.
   * Stopping the iteration early interrupts the task as `signal` would: the trace records the
   * abort and the task's end, and the next run continues from there.
   */
  run(input: RunInput, options: RunOptions = {}): AsyncIterable<OmniMessage> {
    return this.start(input, options);
  }

  /**
   * Hands a notice to the session's event handlers (`.agents/events/<name>.md`): accepted with its
   * id and handler, or refused with why. See notices/notice-board.ts for its delivery.
   */
  notify(notice: NoticeInput): NotifyOutcome {
    return this.parts.notices.notify(notice);
  }
  /** Calls a crash left uncertain with Penguin's check, and the user's decision on one (sdk/session-recovery.ts). */
  uncertainSteps = (sessionId?: string) => recovery.listUncertainSteps(this.parts.journal, sessionId);
  resolve = (input: recovery.ResolveStepInput) => recovery.resolveStep(this.parts.journal, input);
  /** A task's file changes (its number; none: the latest) and their revert (sdk/session-changes.ts). */
  changes = (task?: changes.ChangeSetRef, options?: changes.ChangesOptions) =>
    changes.changesOf(this.parts, task, options);
  revert = (task?: changes.ChangeSetRef, options: changes.RevertOptions = {}) =>
    changes.revertOf(this.parts, task, options, this.isRunning);

  /** The model's latest checklist (update_plan) and the latest plan a plan-mode task proposed. */
  get plan(): SessionPlan {
    return plan.planSnapshot(this.parts.state);
  }

  /**
   * Carries out a proposed plan (`options.plan`, else the latest one): a task whose input is the
   * plan, run with `options.approve` (the mode the person chose; plan mode is refused).
   */
  approvePlan(options: RunOptions & { plan?: string } = {}): AsyncIterable<OmniMessage> {
    return this.run(plan.approvedPlanInput(this.parts.state, options), options);
  }

  /** Notices waiting for the model's next turn boundary. */
  get pendingNotices(): number {
    return this.parts.notices.pendingCount;
  }

  /** Calls `listener` with each wake turn a `wake` handler's notice asks for (see sdk/session-wake.ts). */
  onWake(listener: WakeListener): () => void {
    return this.wakes.listen(listener);
  }

  /** A task: the user's input, or (undefined) a wake turn, whose input is the pending notices. */
  private start(
    input: RunInput | undefined,
    options: RunOptions & WakeRunOptions,
  ): AsyncIterable<OmniMessage> {
    if (this.disposed) throw new Error(`session ${this.id} is disposed`);
    this.refuseWhileBusy();
    checkThinkingLevel(options.thinkingLevel, "session.run");
    if (options.goal) checkGoalOptions(options.goal);
    const controller = new AbortController();
    this.running = controller;
    this.activity = "task";
    this.started = false;
    return this.execute(input, options, controller);
  }

  /** Whether a compaction (not a task) is running. */
  get isCompacting(): boolean {
    return this.running !== undefined && this.activity === "compaction";
  }

  /**
   * Compacts the context now (`manual`), in the agent's `compaction.mode`: yields
   * `compaction_begin`, the summary as it streams, the new trace file's header and context, and
   * `compaction_end`, whose `status` says whether it worked (a failed compaction leaves the
   * context as it was, and its `error_message` says why). Throws when a task or another
   * compaction is running: one at a time.
   */
  compact(options: CompactOptions = {}): AsyncIterable<OmniMessage> {
    if (this.disposed) throw new Error(`session ${this.id} is disposed`);
    this.refuseWhileBusy();
    const controller = new AbortController();
    this.running = controller;
    this.activity = "compaction";
    this.started = false;
    return this.executeCompaction(options, controller);
  }

  private refuseWhileBusy(): void {
    if (!this.running) return;
    if (this.activity === "compaction")
      throw new Error(`session ${this.id} is compacting its context; wait for compaction_end`);
    throw new Error(`session ${this.id} is already running a task; steer it or wait for task_end`);
  }

  /**
   * Queues input for the running task, delivered with its next model request as a
   * `[user_steering]` text. Returns false when no task is running. Input the task's requests did
   * not take (it ended first: a limit, a failure, an interrupt) is kept in the conversation and
   * reaches the model with the next run's first request.
   */
  steer(text: string): boolean {
    if (!this.running || this.activity !== "task" || text.trim() === "") return false;
    this.steering.push(text);
    return true;
  }

  /** Interrupts a running task, ends every process the session started and closes the trace. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.parts.notices.close();
    // A run that was never read has nothing running: it just never starts.
    if (!this.started) this.running = undefined;
    this.running?.abort(new Error("the session was disposed"));
    // Every subagent goes too: its task, its processes and its trace.
    await this.parts.subagents?.disposeAll();
    // Every MCP client closes: stdio servers' processes end.
    await this.parts.mcp?.close();
    await this.parts.environment.dispose();
    if (!this.running && !this.parts.trace.closed) this.parts.trace.close();
  }

  /**
   * Steering that came after the task's end was yielded (while the caller handled `task_end`)
   * was accepted, so it is kept: it joins the context and the trace now (the next request
   * delivers it, and a resume sees it), and the next run yields it first.
   */
  private holdOverLateSteering(): void {
    const { parts } = this;
    for (const text of this.steering.takeAll()) {
      const message = steeringMessage(text);
      parts.state.messages.push(message);
      if (!parts.trace.closed) parts.trace.append(message);
      parts.header.push(message);
    }
  }

  /** What a task and a compaction share of the engine's options. */
  private loopParts(thinkingLevel: ThinkingLevel, signal: AbortSignal) {
    const { parts } = this;
    return {
      model: parts.model,
      tools: parts.environment,
      toolSpecs: parts.toolSpecs,
      systemPrompt: parts.systemPrompt,
      thinkingLevel,
      state: parts.state,
      signal,
      maxOutputTokens: parts.maxOutputTokens,
      contextWindow: parts.contextWindow,
      prices: parts.prices,
      retry: parts.retry,
      ...(parts.compaction ? { compaction: sessionCompactionHooks(parts, parts.compaction) } : {}),
      record: (message: OmniMessage) => {
        parts.trace.append(parts.callRedaction?.apply(message) ?? message);
      },
    } satisfies Partial<AgentLoopOptions>;
  }

  private async *executeCompaction(
    options: CompactOptions,
    controller: AbortController,
  ): AsyncGenerator<OmniMessage, void, undefined> {
    if (this.disposed) throw new Error(`session ${this.id} was disposed before this compaction was read`);
    this.started = true;
    const { parts } = this;
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (const record of parts.header.splice(0)) yield record;
      const loop = this.loopParts(parts.thinkingLevel, controller.signal);
      const settings = parts.compaction;
      if (!settings) throw new Error(`session ${this.id} has no compaction settings`);
      const compaction = compactContext(
        {
          ...loop,
          compaction: sessionCompactionHooks(parts, settings),
          usageEvent: (outcome) => usageEvent(parts.state, outcome, parts.prices),
        },
        "manual",
      );
      yield* readUnlessAbandoned(compaction, controller, parts.callRedaction);
    } finally {
      if (!controller.signal.aborted)
        controller.abort(new Error("the caller stopped reading the compaction"));
      options.signal?.removeEventListener("abort", onAbort);
      this.running = undefined;
      if (this.disposed && !parts.trace.closed) parts.trace.close();
      parts.notices.idleAgain();
    }
  }

  private async *execute(
    input: RunInput | undefined,
    options: RunOptions,
    controller: AbortController,
  ): AsyncGenerator<OmniMessage, void, undefined> {
    if (this.disposed) throw new Error(`session ${this.id} was disposed before this run was read`);
    this.started = true;
    const { parts } = this;
    let goal: GoalRun | undefined;
    let goalReported = false;
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (const record of parts.header.splice(0)) yield record;
      if (parts.mcp?.pending) yield* connectMcp(parts, parts.mcp, controller.signal);
      await parts.recoveryNotice?.queue(parts.state, parts.toolSpecs);
      const thinkingLevel = options.thinkingLevel ?? parts.thinkingLevel;
      parts.taskThinking.level = thinkingLevel;
      if (parts.answerers) parts.answerers.run = options.onAsk;
      // A new user message starts a task: what the write guard knows was read is from before it.
      parts.environment.startTask();
      const messages =
        input === undefined
          ? []
          : await inputMessages(input, {
              workspaceDir: parts.workspaceDir,
              scratchpadDir: parts.scratchpadDir,
              vision: parts.model.info.vision,
              sender: options.sender,
            });
      if (options.goal && input !== undefined) {
        const objective = typeof input === "string" ? input : input.text;
        goal = await GoalRun.start(objective, options.goal, {
          dir: parts.scratchpadDir,
          tokens: () => parts.state.sessionTokens,
        });
      }
      const goalRun = goal;
      const changesSlot = new changes.TaskChangesSlot(parts);
      const planning = plan.inPlanMode(options.approve);
      const planWatch = new plan.PlanTaskWatch(parts.state, planning);
      const rounds = planning ? plan.planModeRounds(goalRun) : goalRun;
      const task = runTask(
        {
          ...this.loopParts(thinkingLevel, controller.signal),
          approve: approverOf(options.approve),
          gate: {
            guardrail: parts.guardrail,
            rules: parts.rules,
            permissionOf: (name) =>
              // A deferred MCP tool called before it was loaded still has its permission.
              (
                parts.toolSpecs.find((tool) => tool.name === name) ??
                parts.environment.toolSpecs().find((tool) => tool.name === name)
              )?.permission,
            ...(parts.hooks ? { beforeHooks: parts.hooks.before.bind(parts.hooks) } : {}),
          },
          maxTurns: options.maxTurns ?? parts.maxTurns,
          budget: parts.budget,
          steering: this.steering,
          boundary: parts.notices,
          ...(rounds ? { rounds } : {}),
          beforeTaskEnd: () => changesSlot.beforeTaskEnd(),
          record: (message) => {
            changesSlot.beforeRecord(message);
            parts.trace.append(parts.callRedaction?.apply(message) ?? message);
            goalRun?.observe(message);
            planWatch.observe(message);
          },
          stored: () => parts.trace.stored(),
        },
        messages,
      );
      yield* readUnlessAbandoned(changesSlot.around(task), controller, parts.callRedaction);
      const proposed = await planWatch.proposal(parts.scratchpadDir);
      if (proposed) {
        parts.trace.append(proposed);
        yield proposed;
      }
      if (goalRun?.finished) {
        const finished = goalRun.finishedEvent();
        goalReported = true;
        parts.trace.append(finished);
        yield finished;
      }
    } finally {
      // A caller that stopped reading still gets the goal's end in the trace.
      if (goal?.finished && !goalReported && !parts.trace.closed) parts.trace.append(goal.finishedEvent());
      // Anything still running (MCP connect, subagents) stops with the task.
      if (!controller.signal.aborted) controller.abort(new Error("the caller stopped reading the task"));
      options.signal?.removeEventListener("abort", onAbort);
      this.holdOverLateSteering();
      this.running = undefined;
      if (this.disposed && !parts.trace.closed) parts.trace.close();
      parts.notices.idleAgain();
    }
  }
}
