import type { OmniMessage, SessionMetaPayload, ToolSpec } from "@penguin/protocol";
import type { McpServer } from "@penguin/state";
import type { TraceWriter } from "@penguin/trace";
import type { SessionRules } from "../approval/session-rules.js";
import type { ConversationState } from "../engine/types.js";
import type { IdNumbers, Mailbox } from "../tools/messaging/index.js";
import type { SubagentPointer } from "../tools/subagent/index.js";
import type { CreateSessionOptions, ResumeSessionOptions } from "./agent-options.js";
import type { TreePlace } from "./agent-seat.js";
import type { ChosenExecutionProfile } from "./execution-profile.js";
import type { ResolvedModel } from "./model-choice.js";
import type { SessionJournal } from "./session-journal.js";
import type { SessionSurroundings } from "./surroundings.js";

/** What a new or resumed session is put together from (see Agent.assemble). */
export interface SessionAssembly {
  id: string;
  resolved: ResolvedModel;
  workspaceDir: string;
  systemPrompt: string;
  trace: TraceWriter;
  state: ConversationState;
  rules: SessionRules;
  options: CreateSessionOptions | ResumeSessionOptions;
  isNew: boolean;
  /** The session's MCP servers: the agent's configured ones, then a top-level session's own. */
  mcpServers: readonly McpServer[];
  recordedTools?: ToolSpec[];
  /** A resumed session's latest recorded session_meta. */
  recordedMeta?: OmniMessage<SessionMetaPayload>;
  /** Set for a subagent session: its parent. */
  parentSessionId?: string;
  /** Set for a subagent session: its end of the parent session's inboxes. */
  mailbox?: Mailbox;
  /** Set for a launched child: its place in the agent tree. */
  tree?: TreePlace;
  /** A resumed parent's subagent pointers. */
  pointers?: SubagentPointer[];
  /** A resumed parent's first free message and question numbers. */
  firstNumbers?: IdNumbers;
  surroundings: SessionSurroundings;
  /** A resumed session's journal, opened on its records (a new session gets a fresh one). */
  journal?: SessionJournal;
  /** Records a resume added to the trace (a dangling compaction closed), streamed first. */
  resumeNotes?: OmniMessage[];
  /** Where its tools run (see execution-profile.ts). */
  executionProfile: ChosenExecutionProfile;
}
