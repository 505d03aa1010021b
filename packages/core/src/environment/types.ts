import type { FileEffect, OmniMessage, StopReason } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { Approver } from "../approval/approver.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { AgentPlace, RoundCall } from "./current-directory.js";
import type { FileAccess } from "./file-access.js";
import type { FileReadRegistry } from "./file-reads.js";
import type { PathConfinement } from "./workspace-confinement.js";

/** Answers a question about an image with the configured vision model (for `describe_image`). */
export type DescribeImageFn = (
  image: { dataUrl: string; mimeType: string },
  prompt: string,
  signal?: AbortSignal,
) => Promise<{ ok: true; text: string } | { ok: false; error: string }>;

/** What a tool may use while it runs. Built by the Environment for every call. */
export interface ToolExecutionContext {
  /**
   * The agent's current directory (absolute): relative paths and commands start here. It is the
   * session's workspace until change_directory moves it.
   */
  workspaceDir: string;
  /** The session's workspace (absolute), the root for safety checks; absent: `workspaceDir`. */
  workspaceRoot?: string;
  toolCallId: string;
  /**
   * Fires on user interrupt or on the call's timeout. Its reason is a DOMException named
   * "AbortError" for the user's interrupt and "TimeoutError" for the timeout.
   */
  signal?: AbortSignal;
  /** Forwarded to tools that spawn child sessions (approval inheritance). */
  approve?: Approver;
  sessionId: string;
  /** `scratchpad/<session-id>/` of the session (absolute). */
  scratchpadDir: string;
  /** The session's command sessions (exec_command / input_command). */
  processes: ProcessManager;
  /** Whether the session's model reads images itself. */
  modelHasVision: boolean;
  /** Present when a vision model is configured for text-only sessions. */
  describeImage?: DescribeImageFn;
  /**
   * Present while the write guard (`tools.writeGuard`) is on: the files read, listed or written
   * in the current task, with their hashes. Cleared when a new user message starts a task.
   */
  fileReads?: FileReadRegistry;
  /** Where read_file, edit_file and write_file read and write text (absent: the disk). */
  files?: FileAccess;
  /** Where file tools may go (a sandboxed session's workspace); absent: anywhere. */
  confinement?: PathConfinement;
  /** A sandbox without network: tools that fetch URLs themselves (web_fetch, image URLs) refuse. */
  offline?: boolean;
  /** Where the agent is and what it loaded there (change_directory moves it, use_skill reads its skills). */
  place?: AgentPlace;
  /**
   * The calls of this call's model round, known once the model's reply has ended (absent outside
   * an engine turn): change_directory must be alone in its round.
   */
  roundCalls?: () => Promise<readonly RoundCall[]>;
  /**
   * Whether the session offers a tool of this name (after `allowed_tools`), so that a tool's
   * advice names only tools the model can call. Absent outside an Environment.
   */
  offersTool?: (name: string) => boolean;
  /**
   * Journals what this call is about to do, before it does it ("Work that survives a crash"): the
   * files it changes with their hashes before and after, or the command session / job it started.
   * Absent outside an engine turn (nothing is journaled then).
   */
  recordEffect?: (effect: ToolEffect) => void;
  /**
   * Stores the prior state of the paths this call is about to change (content and mode, or
   * absence; directories with everything below them), before the task's first change to each, so
   * the task can be reverted. Called with every path the call changes, before it changes any.
   * Absent when the session keeps no checkpoints. `recursive`: a directory's whole tree (a
   * removal or a move of it), not only the directory itself.
   */
  checkpoint?: (paths: readonly string[], options?: { recursive?: boolean }) => Promise<CheckpointOutcome>;
  /**
   * Awaited before a command starts or gets input: the task's first command takes git's view of
   * the workspace, so the task's end can list what commands changed (never undone). Absent when
   * the session keeps no checkpoints.
   */
  beforeCommand?: () => Promise<void>;
}

/** Whether the prior states were stored; when not, the tool changes nothing and says why. */
export type CheckpointOutcome = { ok: true } | { ok: false; error: string };

/** Where the Environment keeps checkpoints (checkpoints/book.ts is one). */
export interface CheckpointPort {
  /** See `ToolExecutionContext.checkpoint`. */
  before(
    paths: readonly string[],
    call: { sessionId: string; toolCallId: string },
    options?: { recursive?: boolean },
  ): Promise<CheckpointOutcome>;
  /** After a call that checkpointed: records the state it left its paths in (never throws). */
  after(toolCallId: string): Promise<void>;
  /** See `ToolExecutionContext.beforeCommand`: `dir` is the session's workspace. */
  beforeCommand(dir: string): Promise<void>;
  /** A task of session `sessionId` starts (only the owner's tasks count). */
  taskStarted(sessionId: string): void;
}

/** What a call is about to change: recorded as a `tool_effect` event before the change. */
export interface ToolEffect {
  files?: FileEffect[];
  process_id?: string;
}

/** A tool's own report of how it ended. */
export interface ToolResult {
  /** The tool's self-reported terminal state (lowest priority). */
  stopReason?: StopReason;
  /** Terminal marker appended outside the truncation window (e.g. the exit code). */
  note?: string;
  /** Data-URL images, appended after the text output. */
  images?: string[];
}

/**
 * A tool yields only `partial_tool_call_output` deltas (and, for subagent tools, the child's
 * origin-tagged messages); the Environment frames, times out, truncates, archives and closes
 * every call.
 */
export interface BuiltinTool {
  name: string;
  definition: ToolDefinitionConfig;
  execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
    // biome-ignore lint/suspicious/noConfusingVoidType: a tool generator may end with a bare `return;`.
  ): AsyncGenerator<OmniMessage, ToolResult | void>;
  /**
   * For tools that change files: the resolved absolute paths a call reads or changes (empty: none
   * known). Calls that share a key run one after another in start order ("File-changing calls on
   * the same path run one after another in call order, never interleaved"); a call waits until it
   * holds all of its keys. Called with validated arguments, when the call starts.
   */
  lockKeys?(args: Record<string, unknown>, workspaceDir: string): readonly string[];
}

/** Makes a tool from its (possibly user-edited) definition. */
export type ToolFactory = (definition: ToolDefinitionConfig) => BuiltinTool;
