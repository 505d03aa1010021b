import { dirname, resolve, sep } from "node:path";
import {
  type CommandChanges,
  fileCheckpoint,
  isPayload,
  type OmniMessage,
  type PathState,
} from "@penguin/protocol";
import { taskSpans } from "@penguin/trace";
import type { CheckpointOutcome, CheckpointPort } from "../environment/types.js";
import { CommandWatch, isWithin } from "./command-changes.js";
import { type LineCounts, lineCounts } from "./line-counts.js";
import { afterState, capturePath, linkTarget, pathExists } from "./path-state.js";
import type { BlobStore } from "./store.js";

// The checkpoints of one top-level session: which change set (a task, or a revert) changed which
// path, and the path's state before and after. Kept in memory, written to the session's trace as
// `file_checkpoint` records as it grows (a before-state before the change it precedes), and read
// back from the trace on first use, so it survives a resume. Subagents' tools write into the book
// of the session at the top of their tree: their changes belong to the task that launched them.

/** One path of one change set. */
export interface CheckpointEntry {
  path: string;
  before: PathState;
  /** The latest state a call of the change set left it in; absent: no call finished after the change. */
  after?: PathState;
  /** Its line counts (a file's), taken when the change set is summed up (`countLines`). */
  lines?: LineCounts;
}

export interface CheckpointBookOptions {
  /** The top-level session whose trace holds the records. */
  ownerSessionId: string;
  store: BlobStore;
  /** The owner's records so far (read once, on first use). */
  records: () => readonly OmniMessage[];
  /** Appends a record to the owner's trace (false or a throw: it could not). */
  append: (record: OmniMessage) => void;
}

interface Loaded {
  /** Change set id → path → entry, in the order of the change set's first change to each path. */
  sets: Map<string, Map<string, CheckpointEntry>>;
  /** The owner's task now running (or the last one); 0 before the first. */
  task: number;
  reverts: number;
  /** Revert change set → the change set it reverted. */
  reverted: Map<string, string>;
  /** Task → what its commands changed, as its `task_changes` recorded it. */
  commands: Map<string, CommandChanges>;
}

export class CheckpointBook implements CheckpointPort {
  private loaded: Loaded | undefined;
  /** Per tool call: its change set and the paths it changed, for their after-states. */
  private readonly pending = new Map<string, { changeSet: string; paths: Set<string> }>();
  /** One capture at a time: two calls' checkpoints of one path never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  /** git's view of the workspace before the current task's first command. */
  private readonly commandWatch = new CommandWatch();

  constructor(private readonly options: CheckpointBookOptions) {}

  get store(): BlobStore {
    return this.options.store;
  }

  get ownerSessionId(): string {
    return this.options.ownerSessionId;
  }

  taskStarted(sessionId: string): void {
    if (sessionId !== this.options.ownerSessionId || !this.loaded) return;
    this.loaded.task += 1;
  }

  /**
   * The owner's current task when it changed files in this process, else undefined (without
   * reading the trace: a book never used has nothing for the task now ending).
   */
  changedTask(): string | undefined {
    if (!this.loaded) return undefined;
    const task = String(this.loaded.task);
    return (this.loaded.sets.get(task)?.size ?? 0) > 0 ? task : undefined;
  }

  /** The change set of the owner's current (or last) task. */
  currentTask(): string {
    return String(this.load().task);
  }

  /** Before a command starts (of any agent of the tree): the task's first one snapshots git's view of `dir`. */
  async beforeCommand(dir: string): Promise<void> {
    try {
      await this.commandWatch.start(this.currentTask(), dir);
    } catch {
      // The trace could not be read: the task's end then says nothing of commands.
    }
  }

  /** Whether the owner's current task ran a command (its end then compares git's view). */
  ranCommands(): boolean {
    return this.loaded !== undefined && this.commandWatch.watching(String(this.loaded.task));
  }

  /** At the current task's end: what its commands changed outside the file tools (undefined: it ran none). */
  async commandChanges(): Promise<{ changeSet: string; commands: CommandChanges } | undefined> {
    if (!this.ranCommands()) return undefined;
    const changeSet = this.currentTask();
    const commands = await this.commandWatch.finish(changeSet, this.entries(changeSet), (path) =>
      isWithin(path, this.options.store.dir),
    );
    return commands ? { changeSet, commands } : undefined;
  }

  /** What the commands of `changeSet` changed, as its end recorded it. */
  commandsOf(changeSet: string): CommandChanges | undefined {
    return this.load().commands.get(changeSet);
  }

  /** Notes what the commands of `changeSet` changed (its `task_changes` is being recorded). */
  noteCommands(changeSet: string, commands: CommandChanges): void {
    this.load().commands.set(changeSet, commands);
  }

  /** The change sets with entries, oldest first. */
  changeSets(): string[] {
    return [...this.load().sets.keys()];
  }

  /** Whether `changeSet` has checkpoints, or a record of what its commands changed. */
  knows(changeSet: string): boolean {
    const loaded = this.load();
    return loaded.sets.has(changeSet) || loaded.commands.has(changeSet);
  }

  /** The entries of `changeSet`, in the order of its first change to each path. */
  entries(changeSet: string): CheckpointEntry[] {
    return [...(this.load().sets.get(changeSet)?.values() ?? [])];
  }

  /** Whether `changeSet` is reverted (by a revert that is not itself reverted). */
  isReverted(changeSet: string): boolean {
    return this.revertedBy(changeSet) !== undefined;
  }

  /** The revert that reverted `changeSet` and stands (is not itself reverted), if any. */
  revertedBy(changeSet: string): string | undefined {
    for (const [revert, target] of this.load().reverted) {
      if (target === changeSet && !this.isReverted(revert)) return revert;
    }
    return undefined;
  }

  /** The change set revert `changeSet` reverted; undefined for a task. */
  revertOf(changeSet: string): string | undefined {
    return this.load().reverted.get(changeSet);
  }

  /** The newest task (not a revert) with changes that is not reverted: what an undo reverts. */
  latestTask(): string | undefined {
    return this.changeSets()
      .filter((set) => !set.startsWith("undo-") && !this.isReverted(set))
      .at(-1);
  }

  /** Notes that revert `changeSet` reverted `target`. */
  noteRevert(changeSet: string, target: string): void {
    this.load().reverted.set(changeSet, target);
  }

  /** A new change set id for a revert. */
  nextRevert(): string {
    const loaded = this.load();
    loaded.reverts += 1;
    return `undo-${loaded.reverts}`;
  }

  before(
    paths: readonly string[],
    call: { sessionId: string; toolCallId: string },
    options: { recursive?: boolean } = {},
  ): Promise<CheckpointOutcome> {
    return this.checkpoint(this.currentTask(), paths, call, options.recursive === true);
  }

  /** Stores the prior state of `paths` in `changeSet` (each path once per change set). */
  checkpoint(
    changeSet: string,
    paths: readonly string[],
    call: { sessionId?: string; toolCallId: string },
    recursive = true,
  ): Promise<CheckpointOutcome> {
    const run = this.queue.then(() => this.capture(changeSet, paths, call, recursive));
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Records the states the call `toolCallId` left its paths in. Queued behind the captures, so a
   * content dropped as superseded is never one a capture is storing at the same moment.
   */
  after(toolCallId: string): Promise<void> {
    const run = this.queue.then(() => this.recordAfter(toolCallId));
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Takes the line counts of the paths of `changeSet` whose counts are not known yet (from the
   * before and the latest after contents). Queued behind the captures and after-states, so a
   * content is never dropped while it is being read.
   */
  countLines(changeSet: string): Promise<void> {
    const run = this.queue.then(async () => {
      for (const entry of this.entries(changeSet)) {
        const { before, after } = entry;
        if (entry.lines || !after) continue;
        // Only a file's content has lines; one the change set left as it found it has none to count.
        if (after.kind !== "file" && before.kind !== "file") continue;
        if (after.kind === "file" && before.kind === "file" && after.sha256 === before.sha256) continue;
        try {
          entry.lines = await lineCounts(this.options.store, entry.path, before, after, false);
        } catch {
          // Unreadable contents: the summary shows no line counts for it.
        }
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  private async recordAfter(toolCallId: string): Promise<void> {
    const pending = this.pending.get(toolCallId);
    if (!pending) return;
    this.pending.delete(toolCallId);
    const set = this.load().sets.get(pending.changeSet);
    if (!set) return;
    for (const entry of set.values()) {
      const touched = [...pending.paths].some((path) => entry.path === path || isBelow(entry.path, path));
      if (!touched) continue;
      try {
        const state = await afterState(entry.path, this.options.store, entry.before.kind === "absent");
        if (entry.after && JSON.stringify(entry.after) === JSON.stringify(state)) continue;
        const superseded = entry.after;
        entry.after = state;
        // Counted once the change set is summed up (countLines), not on every call: 1,000 edits
        // of one file cost one diff, not 1,000.
        entry.lines = undefined;
        this.record({
          change_set: pending.changeSet,
          path: entry.path,
          after: state,
          tool_call_id: toolCallId,
        });
        await this.dropIfUnused(superseded);
      } catch {
        // Unreadable now: the entry keeps no after-state, and a revert reports it as a conflict.
      }
    }
  }

  /**
   * A change set keeps the latest state each call left a path in, not every one: an earlier
   * after-state's content goes once nothing else refers to it (1,000 edits of a file in one task
   * keep two copies of it, not a thousand).
   */
  private async dropIfUnused(state: PathState | undefined): Promise<void> {
    if (state?.kind !== "file" || !state.stored) return;
    for (const set of this.load().sets.values()) {
      for (const entry of set.values()) {
        for (const other of [entry.before, entry.after]) {
          if (other?.kind === "file" && other.sha256 === state.sha256) return;
        }
      }
    }
    await this.options.store.remove(state.sha256);
  }

  /** Records a revert's after-states (it has no tool call). */
  async settle(changeSet: string, paths: readonly string[]): Promise<void> {
    const id = `revert-${changeSet}`;
    this.pending.set(id, { changeSet, paths: new Set(paths) });
    await this.after(id);
  }

  private async capture(
    changeSet: string,
    paths: readonly string[],
    call: { sessionId?: string; toolCallId: string },
    recursive: boolean,
  ): Promise<CheckpointOutcome> {
    const loaded = this.load();
    let set = loaded.sets.get(changeSet);
    if (!set) {
      set = new Map();
      loaded.sets.set(changeSet, set);
    }
    const pending = this.pending.get(call.toolCallId) ?? { changeSet, paths: new Set<string>() };
    this.pending.set(call.toolCallId, pending);
    const who =
      call.sessionId && call.sessionId !== this.options.ownerSessionId ? { session_id: call.sessionId } : {};
    try {
      const targets: string[] = [];
      for (const raw of paths) {
        const path = resolve(raw);
        // The store itself is never checkpointed.
        if (path === this.options.store.dir || isBelow(path, this.options.store.dir)) continue;
        targets.push(path);
        // A write through a symlink changes the file it points to: that file is checkpointed too.
        const target = recursive ? undefined : await linkTarget(path);
        if (target !== undefined) targets.push(target);
      }
      for (const path of targets) {
        pending.paths.add(path);
        if (set.has(path)) continue;
        // A path below one that was absent before the change set was absent too.
        const absentAbove = ancestors(path).some((above) => set.get(above)?.before.kind === "absent");
        let captured = absentAbove ? [{ path, state: { kind: "absent" } as PathState }] : undefined;
        if (!captured) {
          captured = await capturePath(path, this.options.store, recursive);
          if (captured[0]?.state.kind === "absent") {
            // Directories a change creates on the way are recorded as absent, so a revert removes them.
            const missing = await missingAncestors(path, set);
            captured = [
              ...missing.map((above) => ({ path: above, state: { kind: "absent" } as PathState })),
              ...captured,
            ];
          }
        }
        for (const { path: at, state } of captured) {
          if (set.has(at)) continue;
          set.set(at, { path: at, before: state });
          pending.paths.add(at);
          this.record({
            change_set: changeSet,
            path: at,
            before: state,
            ...who,
            tool_call_id: call.toolCallId,
          });
        }
      }
      return { ok: true };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        error: `Could not store the checkpoint of the files this call changes (${why}); nothing was changed.`,
      };
    }
  }

  private record(fields: Parameters<typeof fileCheckpoint>[0]): void {
    this.options.append(fileCheckpoint(fields));
  }

  private load(): Loaded {
    if (this.loaded) return this.loaded;
    const records = this.options.records();
    const loaded: Loaded = {
      sets: new Map(),
      task: taskSpans(records).length,
      reverts: 0,
      reverted: new Map(),
      commands: new Map(),
    };
    for (const record of records) {
      if (isPayload(record, "changes_reverted"))
        loaded.reverted.set(record.payload.change_set, record.payload.reverted);
      if (isPayload(record, "task_changes") && record.payload.commands)
        loaded.commands.set(record.payload.change_set, record.payload.commands);
      if (!isPayload(record, "file_checkpoint")) continue;
      const { change_set: changeSet, path, before, after } = record.payload;
      let set = loaded.sets.get(changeSet);
      if (!set) {
        set = new Map();
        loaded.sets.set(changeSet, set);
        if (changeSet.startsWith("undo-"))
          loaded.reverts = Math.max(loaded.reverts, Number(changeSet.slice(5)) || 0);
      }
      const entry = set.get(path);
      if (before && !entry) set.set(path, { path, before });
      if (after && entry) entry.after = after;
    }
    this.loaded = loaded;
    return loaded;
  }
}

const isBelow = (path: string, dir: string) => path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** Every directory above `path`, nearest first. */
function ancestors(path: string): string[] {
  const found: string[] = [];
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) found.push(at);
  return found;
}

/** The directories above `path` that do not exist and have no entry yet, outermost first. */
async function missingAncestors(path: string, set: Map<string, CheckpointEntry>): Promise<string[]> {
  const missing: string[] = [];
  for (const above of ancestors(path)) {
    if (set.has(above) || (await pathExists(above))) break;
    missing.unshift(above);
  }
  return missing;
}
