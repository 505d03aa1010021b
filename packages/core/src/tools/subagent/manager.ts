import { errorMessage } from "@penguin/protocol";
import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import { type Mailbox, MessageHub } from "../messaging/hub.js";
import { MAX_SUBAGENT_SESSIONS, SUBAGENT_ID_PREFIX } from "./limits.js";
import { type RestoredChildState, restoredChildState } from "./restored.js";
import { Subagent } from "./subagent.js";
import type { ChildSessionRequest, SubagentInfo, SubagentLauncher, UsageSink } from "./types.js";

export interface SubagentManagerOptions {
  launcher: SubagentLauncher;
  /** Cap on subagent sessions kept (running or finished); default 8. */
  maxSessions?: number;
  /** Per-subagent unread buffer in characters; default 1 MiB (as a command session's). */
  unreadBufferChars?: number;
  /** Each child request's usage, counted into the parent session's totals. */
  onUsage?: UsageSink;
  /** The inboxes of the session's agents; default a new hub with the default bounds. */
  messages?: MessageHub;
}

/** A `subagent` pointer event of a parent's trace. */
export interface SubagentPointer {
  subagentId: string;
  sessionId: string;
}

export type SpawnResult = { ok: true; subagent: Subagent } | { ok: false; error: string };

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
  /** The ids of spawns waiting for their child session; they hold a place under the cap. */
  private readonly starting = new Set<string>();
  private nextId = 1;
  private disposed = false;
  private readonly finishedListeners = new Set<(child: Subagent) => void>();

  constructor(private readonly options: SubagentManagerOptions) {
    this.maxSessions = options.maxSessions ?? MAX_SUBAGENT_SESSIONS;
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1) {
      throw new RangeError(`maxSessions must be a positive integer, got ${options.maxSessions}`);
    }
    this.messages = options.messages ?? new MessageHub();
    this.messages.open(ROOT_AGENT_RUN_ID);
  }

  /** The root agent's end of the session's inboxes. */
  get rootMailbox(): Mailbox {
    return { hub: this.messages, self: ROOT_AGENT_RUN_ID };
  }

  /** A child's end of the session's inboxes; its messages are sent as `agentRunId`. */
  mailboxOf(agentRunId: string): Mailbox {
    return { hub: this.messages, self: agentRunId, parent: ROOT_AGENT_RUN_ID };
  }

  /**
   * Calls `listener` each time a child's task ends (an `agent.finished` notice is made from it).
   * Returns the function that removes it.
   */
  onChildFinished(listener: (child: Subagent) => void): () => void {
    this.finishedListeners.add(listener);
    return () => this.finishedListeners.delete(listener);
  }

  /** Opens a child's inbox while its task runs, and closes it (and tells who listens) when the task ends. */
  private inboxSwitch(agentRunId: string): (running: boolean) => void {
    return (running) => {
      if (running) return void this.messages.open(agentRunId);
      this.messages.close(agentRunId);
      const child = this.subagents.get(agentRunId);
      if (child) for (const listener of this.finishedListeners) listener(child);
    };
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
  async spawn(request: ChildSessionRequest): Promise<SpawnResult> {
    if (this.disposed) return { ok: false, error: "the subagents of this session have been shut down" };
    if (this.subagents.size + this.starting.size >= this.maxSessions) {
      const victim = this.pickEviction();
      if (!victim) return { ok: false, error: this.fullMessage() };
      this.evict(victim);
    }
    // The id is taken now, in call order, not when the child's session is ready: calls in one
    // round start together, and `sub_N` should name the N-th spawn the model asked for whatever
    // order the sessions finish starting in. A spawn that then fails leaves a gap in the numbers.
    const id = `${SUBAGENT_ID_PREFIX}${this.nextId++}`;
    this.starting.add(id);
    let session: Awaited<ReturnType<SubagentLauncher["create"]>>;
    try {
      session = await this.options.launcher.create(request, this.mailboxOf(id));
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
      unreadBufferChars: this.options.unreadBufferChars,
      onUsage: this.options.onUsage,
      onRunningChange: this.inboxSwitch(id),
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
        await this.options.launcher.resume(subagent.sessionId, this.mailboxOf(subagent.id)),
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
    const kept = pointers.slice(-this.maxSessions);
    for (const pointer of pointers.slice(0, pointers.length - kept.length))
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
          unreadBufferChars: this.options.unreadBufferChars,
          onUsage: this.options.onUsage,
          onRunningChange: this.inboxSwitch(pointer.subagentId),
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

  private fullMessage(): string {
    // Spawns still starting hold places too: without them the list could be empty ("in use ()")
    // when every place is taken by calls of the same round.
    const taken = [
      ...[...this.subagents.values()].map((subagent) => subagent.id),
      ...[...this.starting].map((id) => `${id} (starting)`),
    ];
    return `cannot start another subagent: all ${this.maxSessions} subagent sessions are running or in use (${taken.join(", ")}), and running subagents are never evicted. Poll one with input_subagent until it finishes, then retry.`;
  }
}

function idNumber(id: string): number | undefined {
  if (!id.startsWith(SUBAGENT_ID_PREFIX)) return undefined;
  const n = Number(id.slice(SUBAGENT_ID_PREFIX.length));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
