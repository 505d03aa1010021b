import { errorMessage } from "@penguin/protocol";
import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import { type Mailbox, MessageHub } from "../messaging/hub.js";
import { MAX_SUBAGENT_SESSIONS, SUBAGENT_ID_PREFIX } from "./limits.js";
import { type RestoredChildState, restoredChildState } from "./restored.js";
import { RUN_SUBAGENT_PLACEMENT, Subagent } from "./subagent.js";
import { descendsFrom, reportEnd, subtreeDeepestFirst } from "./tree.js";
import type {
  ChildFinished,
  ChildPlacement,
  ChildSessionRequest,
  SubagentInfo,
  SubagentLauncher,
  UsageSink,
} from "./types.js";

export interface SubagentManagerOptions {
  launcher: SubagentLauncher;
  /** Cap on subagent sessions kept (running or finished): `child_agents.max_sessions`, default 8. */
  maxSessions?: number;
  /** Cap on launched children running at once in the tree: `child_agents.max_running`. */
  maxRunning?: number;
  /** Per-subagent unread buffer in characters; default 1 MiB (as a command session's). */
  unreadBufferChars?: number;
  /** Each child request's usage, counted into the parent session's totals. */
  onUsage?: UsageSink;
  /** The inboxes of the session's agents; default a new hub with the default bounds. */
  messages?: MessageHub;
}

/** A `subagent` pointer event of a parent's trace (with where the child sits in the tree). */
export interface SubagentPointer {
  subagentId: string;
  sessionId: string;
  /** Absent: a run_subagent child of the root. */
  placement?: ChildPlacement;
}

export type SpawnResult = { ok: true; subagent: Subagent } | { ok: false; error: string };

/** What stop_agent stopped: the agents whose task ran, and the process groups it ended. */
export type StopTreeResult =
  | { ok: true; stopped: string[]; processesEnded: number }
  | { ok: false; error: string };

/**
 * The subagent sessions of one parent session: run_subagent spawns them, input_subagent polls
 * them or sends follow-ups, and the parent session disposes them all when it ends. "Subagent
 * sessions: 8 — only completed ones are evicted; running subagents never — with no room,
 * spawning is rejected".
 */
export class SubagentManager {
  readonly maxSessions: number;
  /**
   * The inboxes of this session's agents (send_message / wait_messages): the root agent's is open
   * for the session's life, each child's while its task runs. Ids are the children's ids.
   */
  readonly messages: MessageHub;
  private readonly subagents = new Map<string, Subagent>();
  private readonly evicted = new Set<string>();
  /** Evicted subagents still shutting down, awaited by disposeAll. */
  private readonly endings = new Set<Promise<void>>();
  /**
   * The ids of spawns waiting for their child session (true: launched); they hold a place under
   * the caps.
   */
  private readonly starting = new Map<string, boolean>();
  private readonly finishListeners = new Set<(info: ChildFinished) => void>();
  readonly maxRunning: number;
  /**
   * When this process took the session's tree over: a child's task with no end that started
   * before it was run by a process that is gone (see the trace's `ExecutionReadOptions`).
   */
  readonly startedAt = new Date().toISOString();
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: SubagentManagerOptions) {
    this.maxSessions = options.maxSessions ?? MAX_SUBAGENT_SESSIONS;
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) {
      throw new RangeError(`maxSessions must be a positive integer, got ${options.maxSessions}`);
    }
    this.maxRunning = options.maxRunning ?? Number.POSITIVE_INFINITY;
    this.messages = options.messages ?? new MessageHub();
    this.messages.open(ROOT_AGENT_RUN_ID);
  }

  /** The root agent's end of the session's inboxes. */
  get rootMailbox(): Mailbox {
    return { hub: this.messages, self: ROOT_AGENT_RUN_ID };
  }

  /** A child's end of the session's inboxes; its messages are sent as `agentRunId`. */
  mailboxOf(agentRunId: string, parent: string = ROOT_AGENT_RUN_ID): Mailbox {
    return { hub: this.messages, self: agentRunId, parent };
  }

  /**
   * Told when a child's task starts and ends: its inbox is open while the task runs; when it ends,
   * a launched child's launcher gets a message with its status and final answer (its
   * wait_messages returns it), and the `onChildFinished` listeners are told.
   */
  private runningSwitch(agentRunId: string): (running: boolean) => void {
    return (running) => {
      if (running) {
        this.messages.open(agentRunId);
        return;
      }
      this.messages.close(agentRunId);
      const subagent = this.subagents.get(agentRunId);
      if (!subagent) return;
      const { parent, launched, agent } = subagent.placement;
      const outcome = subagent.lastTask ?? { status: "aborted" as const };
      if (launched) reportEnd(this.messages, subagent);
      const info: ChildFinished = { agentRunId, parent, outcome: { ...outcome }, launched };
      if (agent !== undefined) info.agent = agent;
      for (const listener of this.finishListeners) listener(info);
    };
  }

  /**
   * Calls `listener` whenever a child's task ends (any status, either tool's children); returns
   * the function that removes it.
   */
  onChildFinished(listener: (info: ChildFinished) => void): () => void {
    this.finishListeners.add(listener);
    return () => this.finishListeners.delete(listener);
  }

  /** Launched children running now, and launches still starting ("children running at once"). */
  runningLaunched(): number {
    const running = [...this.subagents.values()].filter(
      (subagent) => subagent.placement.launched && subagent.status === "running",
    ).length;
    return running + [...this.starting.values()].filter(Boolean).length;
  }

  get(id: string): Subagent | undefined {
    return this.subagents.get(id);
  }

  /** Every kept subagent, oldest first. */
  list(): SubagentInfo[] {
    return [...this.subagents.values()].map((subagent) => subagent.info());
  }

  /**
   * Makes room (evicting the least recently used finished subagent when the cap is reached) and
   * starts a child session. Refused when every kept subagent is running or in use by a call.
   */
  async spawn(request: ChildSessionRequest, placement?: ChildPlacement): Promise<SpawnResult> {
    if (this.disposed) return { ok: false, error: "the subagents of this session have been shut down" };
    const capped = placement?.launched ? this.runningCapRefusal() : undefined;
    if (capped !== undefined) return { ok: false, error: capped };
    if (this.subagents.size + this.starting.size >= this.maxSessions) {
      const victim = this.pickEviction();
      if (!victim) return { ok: false, error: this.fullMessage(placement?.launched ?? false) };
      this.evict(victim);
    }
    // The id is taken now, in call order, not when the child's session is ready: calls in one
    // round start together, and `sub_N` should name the N-th spawn the model asked for whatever
    // order the sessions finish starting in. A spawn that then fails leaves a gap in the numbers.
    const id = `${SUBAGENT_ID_PREFIX}${this.nextId++}`;
    this.starting.set(id, placement?.launched ?? false);
    let session: Awaited<ReturnType<SubagentLauncher["create"]>>;
    try {
      const where = placement ?? RUN_SUBAGENT_PLACEMENT;
      session = await this.options.launcher.create(request, this.mailboxOf(id, where.parent), where);
    } catch (error) {
      return { ok: false, error: `the subagent could not be started: ${errorMessage(error)}` };
    } finally {
      this.starting.delete(id);
    }
    if (this.disposed) {
      await session.dispose();
      return { ok: false, error: "the subagents of this session have been shut down" };
    }
    const subagent = new Subagent({
      id,
      sessionId: session.id,
      session,
      placement,
      unreadBufferChars: this.options.unreadBufferChars,
      onUsage: this.options.onUsage,
      onRunningChange: this.runningSwitch(id),
    });
    this.subagents.set(subagent.id, subagent);
    return { ok: true, subagent };
  }

  /**
   * Reopens a restored child's session from its trace so it can take a follow-up. A no-op for a
   * child that has a live session.
   */
  async reopen(subagent: Subagent): Promise<{ ok: true } | { ok: false; error: string }> {
    if (subagent.hasSession) return { ok: true };
    try {
      subagent.attachSession(
        await this.options.launcher.resume(
          subagent.sessionId,
          this.mailboxOf(subagent.id, subagent.placement.parent),
          subagent.placement,
        ),
      );
      return { ok: true };
    } catch (error) {
      return {
        ok: false,
        error: `subagent ${subagent.id} (session ${subagent.sessionId}) could not be reopened from its trace: ${errorMessage(error)}`,
      };
    }
  }

  /**
   * Registers the children a resumed parent's trace points to (the most recent `maxSessions`;
   * older ones count as evicted). Nothing is resurrected: each child's state is read from its
   * own trace, and a follow-up prompt reopens it.
   */
  restore(pointers: readonly SubagentPointer[]): void {
    for (const pointer of pointers) {
      const n = idNumber(pointer.subagentId);
      if (n !== undefined && n >= this.nextId) this.nextId = n + 1;
    }
    // The most recent by id: a tree's pointers come from several traces.
    const ordered = [...pointers].sort(
      (a, b) => (idNumber(a.subagentId) ?? 0) - (idNumber(b.subagentId) ?? 0),
    );
    const kept = ordered.slice(-this.maxSessions);
    for (const pointer of ordered.slice(0, ordered.length - kept.length))
      this.evicted.add(pointer.subagentId);
    for (const pointer of kept) {
      if (this.subagents.has(pointer.subagentId)) continue;
      // A child whose trace cannot be read is reported as interrupted; a follow-up then says why it cannot reopen.
      let restored: RestoredChildState = { status: "interrupted" };
      try {
        restored = restoredChildState(this.options.launcher.readTrace(pointer.sessionId));
      } catch {}
      this.subagents.set(
        pointer.subagentId,
        new Subagent({
          id: pointer.subagentId,
          sessionId: pointer.sessionId,
          placement: pointer.placement,
          unreadBufferChars: this.options.unreadBufferChars,
          onUsage: this.options.onUsage,
          onRunningChange: this.runningSwitch(pointer.subagentId),
          restored,
        }),
      );
    }
  }

  /** The message for an id that is not (or no longer) kept. */
  unknownMessage(id: string): string {
    const live = [...this.subagents.keys()];
    const known = live.length > 0 ? `Known subagents: ${live.join(", ")}.` : "No subagent is kept.";
    if (this.evicted.has(id)) {
      return `subagent "${id}" was evicted to make room for newer subagents (it had finished); its trace keeps what it did. ${known}`;
    }
    return `unknown subagent_id "${id}" (use the id run_subagent returned). ${known}`;
  }

  /**
   * stop_agent: stops `target` and every agent below it, deepest first, with every command and
   * job they started. Only the root or an agent above `target` may (`caller`). Stopping agents
   * that no longer run is no failure: the result then names nobody.
   */
  async stopTree(caller: string, target: string, reason: string): Promise<StopTreeResult> {
    const subagent = this.subagents.get(target);
    if (!subagent) return { ok: false, error: this.unknownMessage(target) };
    if (target === caller || !descendsFrom(this.subagents, target, caller)) {
      return {
        ok: false,
        error: `${caller} cannot stop "${target}": an agent may stop only agents it launched and the agents they launched. Nothing was stopped.`,
      };
    }
    const subtree = subtreeDeepestFirst(this.subagents, target);
    const stopped: string[] = [];
    let processesEnded = 0;
    // Every task of the subtree is interrupted at once, before any is awaited: a launcher must
    // not go on working on the end reports of the children stopped under it.
    const wasRunning = new Set(
      subtree.filter((child) => child.status === "running").map((child) => child.id),
    );
    for (const child of subtree) child.interrupt(reason);
    // Then level by level, deepest first: a launcher's processes end after what it launched.
    for (const depth of [...new Set(subtree.map((child) => child.placement.depth))]) {
      const level = subtree.filter((child) => child.placement.depth === depth);
      const ended = await Promise.all(
        level.map(async (child) => {
          const groups = await child.stop(reason);
          if (wasRunning.has(child.id) || groups > 0) stopped.push(child.id);
          return groups;
        }),
      );
      processesEnded += ended.reduce((sum, n) => sum + n, 0);
    }
    // The named agent first, then its descendants (the event's order).
    stopped.sort((a, b) => (a === target ? -1 : b === target ? 1 : 0));
    return { ok: true, stopped, processesEnded };
  }

  /** Stops every kept child (its task and its commands); they stay kept, ready for a follow-up. */
  async stopAll(reason: string): Promise<void> {
    await Promise.all([...this.subagents.values()].map((subagent) => subagent.stop(reason)));
  }

  /** Ends every child (its task, processes and trace), and refuses new ones. */
  async disposeAll(): Promise<void> {
    this.disposed = true;
    this.messages.close(ROOT_AGENT_RUN_ID);
    const all = [...this.subagents.values()];
    this.subagents.clear();
    await Promise.all([...all.map((subagent) => subagent.dispose()), ...this.endings]);
  }

  private pickEviction(): Subagent | undefined {
    return [...this.subagents.values()]
      .filter((subagent) => subagent.status !== "running" && subagent.activeCalls === 0)
      .sort((a, b) => a.useOrder - b.useOrder)[0];
  }

  private evict(subagent: Subagent): void {
    this.subagents.delete(subagent.id);
    this.evicted.add(subagent.id);
    const ending = subagent.dispose().catch(() => {});
    this.endings.add(ending);
    void ending.finally(() => this.endings.delete(ending));
  }

  private fullMessage(launched: boolean): string {
    // Spawns still starting hold places too: without them the list could be empty ("in use ()")
    // when every place is taken by calls of the same round.
    const taken = [
      ...[...this.subagents.values()].map((subagent) => subagent.id),
      ...[...this.starting.keys()].map((id) => `${id} (starting)`),
    ];
    if (launched) {
      return `cannot launch another agent: all ${this.maxSessions} child sessions of this session are running or in use (${taken.join(", ")}), the cap child_agents.max_sessions, and running ones are never evicted. Wait for one to finish (its report arrives through wait_messages) or stop one with stop_agent, then retry.`;
    }
    return `cannot start another subagent: all ${this.maxSessions} subagent sessions are running or in use (${taken.join(", ")}), and running subagents are never evicted. Poll one with input_subagent until it finishes, then retry.`;
  }

  /**
   * Why one more launched child cannot start now (`child_agents.max_running` reached), or
   * undefined. A caller that awaits between this check and the start checks again after the wait.
   */
  runningCapRefusal(): string | undefined {
    if (this.runningLaunched() < this.maxRunning) return undefined;
    const running = [...this.subagents.values()]
      .filter((subagent) => subagent.placement.launched && subagent.status === "running")
      .map((subagent) => subagent.id);
    const starting = [...this.starting].filter(([, launched]) => launched).map(([id]) => `${id} (starting)`);
    return `cannot launch another agent: ${this.maxRunning} launched agents are running at once in this session (${[...running, ...starting].join(", ")}), the cap child_agents.max_running. Wait for one to finish (its message arrives through wait_messages) or stop one with stop_agent, then retry; the cap is a setting of the agent's system_config.yaml.`;
  }
}

function idNumber(id: string): number | undefined {
  if (!id.startsWith(SUBAGENT_ID_PREFIX)) return undefined;
  const n = Number(id.slice(SUBAGENT_ID_PREFIX.length));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
