import {
  type Agent,
  createAgent,
  type NoticeInput,
  type NotifyOutcome,
  type ResolveOutcome,
  type ResolveStepInput,
  type RevertOptions,
  type RevertOutcome,
  type RunInput,
  type Session,
  SessionHeldError,
  SetupError,
} from "@penguin/core";
import type { ApprovalMode } from "@penguin/state";
import { scratchpadRoot, tracesDir } from "@penguin/state";
import {
  deleteSession,
  readSession,
  type SubagentNode,
  subagentTree,
  TraceError,
  type TraceLocation,
} from "@penguin/trace";
import type { Logger } from "pino";
import type { RelayedCaller } from "../cluster/instance-calls.js";
import type { SessionRow } from "../db/schema.js";
import type { ServerMetrics } from "../metrics/prometheus.js";
import { openChanges, revertRecords } from "../sessions/changes.js";
import type { SessionStore } from "../sessions/store.js";
import { titleFromMessage } from "../sessions/title.js";
import type { EventHub } from "../sse/event-hub.js";
import type { DatabaseTraces } from "../traces/database-traces.js";
import { publishServerEvent, sessionChannel, userChannel } from "./channels.js";
import type { InstanceAddress, InstanceLease } from "./instance-lease.js";
import { SessionRuntime, type StartOutcome, type StartRefusal, type TaskOptions } from "./session-runtime.js";

export interface SessionManagerOptions {
  hub: EventHub;
  store: SessionStore;
  logger: Logger;
  dataRoot: string;
  idleReleaseMs: number;
  /** Prometheus metrics the sessions feed (absent: none are collected). */
  metrics?: ServerMetrics;
  /** This instance's claims on sessions: a runtime opens only on a session claimed for it. */
  lease: InstanceLease;
  /**
   * Traces kept in the database (instances that share no data root): this instance's files of a
   * session are brought up to date from it before the session is read or taken over here.
   */
  traces?: DatabaseTraces;
}

export interface CreateSessionInput {
  userId: string;
  agentId: string;
  workspace: string;
  model?: string;
  approvalMode?: ApprovalMode;
  title?: string;
  /** The execution profile (default: the agent's `exec.profile`). */
  executionProfile?: string;
}

/** A problem the client can fix (unknown agent or model, unusable config): answered with 400. */
export class SessionSetupError extends Error {
  override readonly name = "SessionSetupError";
}

/** Another live server instance holds the session's runtime: answered with 409 and its address. */
export class SessionOwnedElsewhereError extends Error {
  override readonly name = "SessionOwnedElsewhereError";
  constructor(readonly ownerAddress: string) {
    super(`another server instance (${ownerAddress}) runs this session; send the call there`);
  }
}

/** Where the traces and scratchpads of the server's sessions are: under its data root. */
export function serverTraceLocation(dataRoot: string): TraceLocation {
  return { tracesDir: tracesDir(dataRoot), scratchpadRoot: scratchpadRoot(dataRoot) };
}

/**
 * The session runtime manager: one runtime per session with a live SDK session, at most one task
 * each, released after `idleReleaseMs` without a task or a running command and resumed from the
 * trace on the next task. Deleting a session ends its processes and removes its trace, its
 * scratchpad and its rows; `close` disposes every runtime.
 */
export class SessionManager {
  readonly #runtimes = new Map<string, SessionRuntime>();
  readonly #location: TraceLocation;
  /** Sessions reverted from their trace right now (no runtime holds them open): nothing starts meanwhile. */
  readonly #offlineReverts = new Set<string>();
  /**
   * Claims and releases run one after another, so the release of a runtime just let go cannot
   * land after the claim of the next one on the same session.
   */
  #leaseOps: Promise<unknown> = Promise.resolve();
  #closed = false;
  /**
   * Passes a call to the instance that owns the session and gives its answer (undefined: it did
   * not answer in time). Set when the instances share a relay (PostgreSQL); without one, such a
   * call is answered 409 with the owner's address.
   */
  forwardCall:
    | ((
        owner: InstanceAddress,
        request: Request,
        caller: RelayedCaller,
        body: string | undefined,
      ) => Promise<Response | undefined>)
    | undefined;

  constructor(private readonly options: SessionManagerOptions) {
    this.#location = serverTraceLocation(options.dataRoot);
  }

  get location(): TraceLocation {
    return this.#location;
  }

  get dataRoot(): string {
    return this.options.dataRoot;
  }

  /** The live runtime of a session, if it has one (none after a release or a restart). */
  runtime(sessionId: string): SessionRuntime | undefined {
    return this.#runtimes.get(sessionId);
  }

  /**
   * The address of the other live instance that holds the session, when one does: a call that
   * needs its runtime (a task, a decision, a process) must go there. Undefined when this instance
   * holds it or nobody does.
   */
  async ownerElsewhere(sessionId: string): Promise<InstanceAddress | undefined> {
    if (this.#runtimes.has(sessionId)) return undefined;
    return this.options.lease.ownerElsewhere(sessionId);
  }

  /**
   * Makes this instance's files of the session's trace current before they are read: with traces
   * in the database and the session run elsewhere (or nowhere), they are brought up to its rows.
   */
  async traceCurrent(sessionId: string): Promise<void> {
    if (this.options.traces && !this.#runtimes.has(sessionId))
      await this.options.traces.restoreTree(sessionId);
  }

  /** Stores an imported session's trace where traces are kept besides the files (a no-op without). */
  async traceImported(sessionId: string): Promise<void> {
    await this.options.traces?.upload([sessionId]);
  }

  /**
   * After each lease renewal: a session another instance holds now (this one was judged dead
   * meanwhile and it was taken over) has its runtime here stopped, so it never runs twice.
   */
  async checkOwnership(): Promise<void> {
    const lost = await this.options.lease.heldElsewhere([...this.#runtimes.keys()]);
    for (const id of lost) {
      const runtime = this.#runtimes.get(id);
      if (!runtime) continue;
      this.#runtimes.delete(id);
      this.options.logger.warn(
        { session_id: id },
        "another instance took this session over; its runtime here stops",
      );
      await runtime.dispose();
    }
  }

  /** Creates the SDK session (its trace starts now) and its row. */
  async create(input: CreateSessionInput): Promise<SessionRow> {
    if (input.model?.startsWith("replay:")) {
      throw new SessionSetupError("replay models cannot be used through the server: pick a configured model");
    }
    const agent = await this.#agent(input.agentId);
    let session: Session;
    try {
      session = await agent.createSession({
        workspaceDir: input.workspace,
        ...(input.model !== undefined ? { model: input.model } : {}),
        ...(input.executionProfile !== undefined ? { executionProfile: input.executionProfile } : {}),
      });
    } catch (error) {
      throw asSetupError(error);
    }
    const meta = readSession(this.#location, session.id).records[0];
    const provider = meta?.type === "session_meta" ? meta.payload.provider : "";
    const modelId = meta?.type === "session_meta" ? meta.payload.model_id : "";
    let row: SessionRow;
    try {
      row = await this.options.store.insert({
        id: session.id,
        user_id: input.userId,
        title: input.title ?? "",
        agent_id: agent.id,
        workspace: session.workspaceDir,
        provider,
        model_id: modelId,
        execution_profile: session.meta.payload.execution_profile ?? "native",
        approval_mode: input.approvalMode ?? agent.config.approval?.mode ?? "allow-all",
      });
    } catch (error) {
      await session.dispose();
      deleteSession(this.#location, session.id);
      throw error;
    }
    this.#runtimes.set(session.id, this.#newRuntime(row, session));
    // New, so nobody else can hold it: the claim only records that this instance does.
    await this.#serialLease(() => this.options.lease.claim(row.id));
    publishServerEvent(this.options.hub, userChannel(row.user_id), "session_created", { session: row });
    return row;
  }

  /**
   * Starts a task on the session (resuming it from its trace when it has no live runtime).
   * `busy` while another task runs, `compacting` while a compaction does. An untitled session
   * takes the task's first line as title.
   */
  async startTask(row: SessionRow, input: RunInput, options: TaskOptions = {}): Promise<StartOutcome> {
    if (this.#closed) throw new Error("the server is stopping");
    if (this.#offlineReverts.has(row.id)) return "busy";
    const runtime = await this.#runtimeFor(row);
    const started = await runtime.start(input, options);
    if (typeof started !== "string" && row.title === "") {
      const text = typeof input === "string" ? input : input.text;
      const title = titleFromMessage(text);
      if (title !== "") await this.options.store.update(row.id, { title });
    }
    return started;
  }

  /**
   * Carries out the plan the session proposed (resuming it from its trace when it has no live
   * runtime) in `mode`, which `switchMode` stores once the task is sure to start. `no_plan` when
   * none was proposed, `busy` or `compacting` as for a task.
   */
  async approvePlan(
    row: SessionRow,
    mode: Exclude<ApprovalMode, "plan">,
    switchMode: () => Promise<void>,
  ): Promise<StartOutcome | "no_plan"> {
    if (this.#closed) throw new Error("the server is stopping");
    if (this.#offlineReverts.has(row.id)) return "busy";
    const runtime = await this.#runtimeFor(row);
    return runtime.approvePlan(mode, switchMode);
  }

  /**
   * Compacts the session's context now (resuming it from its trace when it has no live runtime).
   * `busy` while a task runs, `compacting` while another compaction does.
   */
  async compact(row: SessionRow): Promise<StartOutcome> {
    if (this.#closed) throw new Error("the server is stopping");
    if (this.#offlineReverts.has(row.id)) return "busy";
    const runtime = await this.#runtimeFor(row);
    return runtime.compact();
  }

  /**
   * Reverts (or previews the revert of) change set `changeSet`: through the SDK session when a
   * runtime holds it open, else from its trace as `penguin undo` does (no model is opened). `busy`
   * or `compacting` while a task, a compaction or another revert runs. A revert that ran is
   * published on the session's stream: its `changes_reverted` and its own `task_changes`.
   */
  async revert(
    row: SessionRow,
    changeSet: string,
    options: RevertOptions,
  ): Promise<RevertOutcome | undefined | StartRefusal> {
    if (this.#closed) throw new Error("the server is stopping");
    const runtime = this.#runtimes.get(row.id);
    if (runtime?.taskState().state === "compacting") return "compacting";
    if (runtime?.busy || this.#offlineReverts.has(row.id)) return "busy";
    let outcome: RevertOutcome | undefined;
    if (runtime?.session) {
      const answer = await runtime.revert(changeSet, options);
      if (answer === "busy") return answer;
      outcome = answer;
    } else {
      // Held for the revert, so no other instance opens the session while its files change.
      const claim = await this.#serialLease(() => this.options.lease.claim(row.id));
      if (!claim.ok) throw new SessionOwnedElsewhereError(claim.ownerAddress);
      this.#offlineReverts.add(row.id);
      let changes: ReturnType<typeof openChanges> | undefined;
      try {
        await this.options.traces?.restoreTree(row.id);
        changes = openChanges(this.options.dataRoot, row.id);
        outcome = await changes?.revert(changeSet, options);
      } finally {
        changes?.close();
        this.#offlineReverts.delete(row.id);
        await this.#serialLease(async () => {
          if (!this.#runtimes.has(row.id)) await this.options.lease.release(row.id);
        });
      }
    }
    if (outcome?.changeSet !== undefined) {
      for (const record of revertRecords(this.#location, row.id, outcome.changeSet))
        this.options.hub.publish(sessionChannel(row.id), { data: JSON.stringify(record) });
    }
    return outcome;
  }

  /** Hands a notice to the session's event handlers (resuming it from its trace when it has no live runtime). */
  async notify(row: SessionRow, input: NoticeInput): Promise<NotifyOutcome> {
    if (this.#closed) throw new Error("the server is stopping");
    const runtime = await this.#runtimeFor(row);
    return runtime.notify(input);
  }

  /** Records the user's decision on an uncertain call (resuming the session from its trace when it has no live runtime). */
  async resolve(row: SessionRow, input: ResolveStepInput): Promise<ResolveOutcome> {
    if (this.#closed) throw new Error("the server is stopping");
    const runtime = await this.#runtimeFor(row);
    return runtime.resolve(input);
  }

  /** Ends the session: its task, every process, its trace and scratchpad (and its subagents'), its rows. */
  async delete(row: SessionRow): Promise<void> {
    if (!this.#runtimes.has(row.id)) {
      // Held (atomically) while it is taken apart, so no other instance opens it meanwhile.
      const claim = await this.#serialLease(() => this.options.lease.claim(row.id));
      if (!claim.ok) throw new SessionOwnedElsewhereError(claim.ownerAddress);
      // Its subagents are known from its trace.
      await this.options.traces?.restoreTree(row.id);
    }
    const runtime = this.#runtimes.get(row.id);
    this.#runtimes.delete(row.id);
    await runtime?.dispose();
    const ids = this.#treeIds(row.id);
    for (const id of ids) deleteSession(this.#location, id);
    await this.options.traces?.remove(ids);
    await this.options.store.delete(row.id);
    this.options.hub.closeChannel(sessionChannel(row.id));
    publishServerEvent(this.options.hub, userChannel(row.user_id), "session_deleted", { session_id: row.id });
  }

  /** Disposes every runtime (the server is stopping): tasks end, processes end, traces close. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#runtimes.values()];
    this.#runtimes.clear();
    await Promise.all(all.map((runtime) => runtime.dispose()));
  }

  /**
   * The session's runtime here, opened when it has none: the session is claimed for this instance
   * first, which fails while another live instance holds it (SessionOwnedElsewhereError).
   */
  async #runtimeFor(row: SessionRow): Promise<SessionRuntime> {
    const existing = this.#runtimes.get(row.id);
    if (existing) return existing;
    const claim = await this.#serialLease(() => this.options.lease.claim(row.id));
    if (!claim.ok) throw new SessionOwnedElsewhereError(claim.ownerAddress);
    // Another call may have opened it while the claim was under way.
    const opened = this.#runtimes.get(row.id);
    if (opened) return opened;
    if (this.#closed) throw new Error("the server is stopping");
    // Taken over from another instance (or never run here): its files as the database has them.
    await this.options.traces?.restoreTree(row.id);
    const restored = this.#runtimes.get(row.id);
    if (restored) return restored;
    const runtime = this.#newRuntime(row);
    this.#runtimes.set(row.id, runtime);
    return runtime;
  }

  #serialLease<T>(op: () => Promise<T>): Promise<T> {
    const result = this.#leaseOps.then(op, op);
    this.#leaseOps = result.catch(() => undefined);
    return result;
  }

  #newRuntime(row: SessionRow, session?: Session): SessionRuntime {
    const runtime: SessionRuntime = new SessionRuntime(
      row.id,
      {
        hub: this.options.hub,
        store: this.options.store,
        logger: this.options.logger,
        idleReleaseMs: this.options.idleReleaseMs,
        metrics: this.options.metrics,
        openSession: async (sessionId) => {
          const agent = await this.#agent(row.agent_id);
          try {
            return await agent.resumeSession(sessionId);
          } catch (error) {
            throw asSetupError(error);
          }
        },
        onStateChange: (state) =>
          publishServerEvent(this.options.hub, userChannel(row.user_id), "session_state", {
            session_id: row.id,
            state,
          }),
        onIdle: () => {
          if (this.#runtimes.get(row.id) !== runtime) return;
          this.#runtimes.delete(row.id);
          this.options.logger.info({ session_id: row.id }, "idle session runtime released");
          // Nobody watches: drop the replay buffer too, so idle sessions cost no memory. A client
          // that comes back with an old Last-Event-ID gets resync_required and refetches.
          const channel = sessionChannel(row.id);
          if (this.options.hub.stats(channel).subscribers === 0) this.options.hub.closeChannel(channel);
          const disposed = runtime.dispose().catch(() => undefined);
          // Free for any instance again, unless this one opened it anew meanwhile; with traces in
          // the database, once its last records are stored there (the next owner resumes from them).
          void (async () => {
            await disposed;
            await this.options.traces?.settled();
            await this.#serialLease(async () => {
              if (!this.#runtimes.has(row.id)) await this.options.lease.release(row.id);
            });
          })().catch((error: unknown) =>
            this.options.logger.error({ err: error, session_id: row.id }, "could not release the session"),
          );
        },
      },
      session,
    );
    return runtime;
  }

  async #agent(agentId: string): Promise<Agent> {
    try {
      return await createAgent({
        dataRoot: this.options.dataRoot,
        agentId,
        logger: { warn: (line) => this.options.logger.warn({ agent_id: agentId }, line) },
      });
    } catch (error) {
      throw asSetupError(error);
    }
  }

  /** The session and its subagents' sessions, children first. */
  #treeIds(sessionId: string): string[] {
    let tree: SubagentNode;
    try {
      tree = subagentTree(this.#location, sessionId);
    } catch (error) {
      if (error instanceof TraceError) return [sessionId];
      throw error;
    }
    const ids: string[] = [];
    const visit = (node: SubagentNode) => {
      for (const child of node.children) if (!child.problem) visit(child);
      ids.push(node.sessionId);
    };
    visit(tree);
    return ids;
  }
}

function asSetupError(error: unknown): Error {
  // A session another process has open (a `penguin chat` on this machine) cannot be reopened here either.
  if (error instanceof SetupError || error instanceof TypeError || error instanceof SessionHeldError)
    return new SessionSetupError(error.message);
  if (error instanceof Error && /^cannot load agent/.test(error.message))
    return new SessionSetupError(error.message);
  return error instanceof Error ? error : new Error(String(error));
}
