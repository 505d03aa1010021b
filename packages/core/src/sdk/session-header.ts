import {
  type OmniMessage,
  type SessionMetaPayload,
  sessionMeta,
  type ToolSpec,
  toolListReady,
} from "@penguin/protocol";
import type { TraceWriter } from "@penguin/trace";
import type { McpToolset } from "../mcp/toolset.js";
import type { ResolvedModel } from "./model-choice.js";

// How a session's trace opens: session_meta (a new session), tool_list_ready (new, or a resumed
// session whose tools changed), then the warnings of its surroundings.

export interface NewSessionMetaInput {
  sessionId: string;
  agentId: string;
  resolved: ResolvedModel;
  systemPrompt: string;
  workspaceDir: string;
  /** Set for a subagent session: its parent. */
  parentSessionId?: string;
  /** The name of the execution profile its tools run under. */
  executionProfile: string;
}

/** The session_meta of a new session; a subagent's says so and names its parent. */
export function newSessionMeta(input: NewSessionMetaInput): OmniMessage<SessionMetaPayload> {
  const { resolved } = input;
  const adapter = resolved.adapter;
  return sessionMeta({
    session_id: input.sessionId,
    provider: adapter.info.provider,
    model_id: adapter.info.modelId,
    ...(resolved.contextWindow ? { model_context_window: resolved.contextWindow } : {}),
    system_prompt: input.systemPrompt,
    workspace: input.workspaceDir,
    agent_id: input.agentId,
    execution_profile: input.executionProfile,
    ...(input.parentSessionId !== undefined
      ? { source: "subagent" as const, parent_session_id: input.parentSessionId }
      : {}),
  });
}

export interface SessionHeaderInput {
  isNew: boolean;
  meta: OmniMessage<SessionMetaPayload>;
  toolSpecs: ToolSpec[];
  /** A resumed session's last recorded tool list. */
  recordedTools?: ToolSpec[];
  mcp: McpToolset | undefined;
  /** What the session went on without (a broken SKILL.md…). */
  warnings: readonly OmniMessage[];
}

/** Appends the header records to the trace and returns them (they are streamed first). */
export function recordSessionHeader(trace: TraceWriter, input: SessionHeaderInput): OmniMessage[] {
  const { toolSpecs, mcp } = input;
  // A resumed session's recorded list ends with the MCP tools, which come back after connecting.
  const recordedOwnTools = input.recordedTools?.filter((tool) => !mcp?.ownsToolName(tool.name));
  const header: OmniMessage[] = [];
  if (input.isNew) header.push(input.meta);
  if (input.isNew || JSON.stringify(recordedOwnTools) !== JSON.stringify(toolSpecs)) {
    header.push(toolListReady(toolSpecs));
  }
  // What the session went on without (a broken SKILL.md…), traced and streamed first.
  header.push(...input.warnings);
  for (const record of header) trace.append(record);
  return header;
}
