import type { AgentCatalog } from "../named-agents/catalog.js";
import type { HandlerCatalog } from "../notices/handlers.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { SkillCatalog } from "../skills/catalog.js";
import type { CurrentDirectory } from "./current-directory.js";
import type { AfterCallHooks } from "./hook-ports.js";
import type { BuiltinTool, CheckpointPort, DescribeImageFn, ToolExecutionContext } from "./types.js";
import type { PathConfinement } from "./workspace-confinement.js";

// What an Environment is made from (see environment.ts).

export interface EnvironmentOptions {
  tools: BuiltinTool[];
  sessionId: string;
  /** The session's workspace (absolute). */
  workspaceDir: string;
  /** `scratchpad/<session-id>/` (absolute); oversized outputs are saved under its `truncated-tool-output/`. */
  scratchpadDir: string;
  /** Where file tools store prior states, so that a task can be reverted (absent: nowhere). */
  checkpoints?: CheckpointPort;
  /** Values replaced by `[redacted]` in every tool output before it is streamed, given to the model or traced. */
  secrets?: string[];
  processes: ProcessManager;
  modelHasVision?: boolean;
  describeImage?: DescribeImageFn;
  /** One-line warnings for the operator (default: stderr). */
  warn?: (line: string) => void;
  /** How long a tool may take to stop after an interrupt or timeout (default ABORT_GRACE_MS). */
  abortGraceMs?: number;
  /** Hash-guarded writes (`tools.writeGuard`): tools get a per-task registry of the files read. */
  writeGuard?: boolean;
  /** The agent's current directory (default: a new one at `workspaceDir`). */
  directory?: CurrentDirectory;
  /** The skills use_skill loads from (absent: skills are off). */
  skills?: SkillCatalog;
  /** The named agents change_directory adds to. */
  agents?: AgentCatalog;
  /** The event handlers change_directory adds to. */
  handlers?: HandlerCatalog;
  /** The session's hooks: after-hooks run here, once a call's output is complete. */
  hooks?: AfterCallHooks;
  /** "allowed-tools": only these tools are offered and run (absent: all of them). */
  allowedTools?: readonly string[];
  /** Where file tools may go (a sandboxed session's workspace); absent: anywhere, as natively. */
  confinement?: PathConfinement;
  /** A sandbox without network: tools refuse to fetch URLs (see ToolExecutionContext.offline). */
  offline?: boolean;
  /** Where the file tools read and write text (absent: the disk). */
  files?: ToolExecutionContext["files"];
}
