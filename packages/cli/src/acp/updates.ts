import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { OmniMessage } from "@penguin/protocol";
import { planUpdate } from "./plan.js";
import { type CallView, type EditorText, pendingCallFields, viewOfCall } from "./tool-calls.js";

/** The most of one tool output an update carries; the whole output stays in the trace. */
export const OUTPUT_MAX_CHARS = 20_000;

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function clipped(output: string): string {
  if (output.length <= OUTPUT_MAX_CHARS) return output;
  const more = output.length - OUTPUT_MAX_CHARS;
  return `${output.slice(0, OUTPUT_MAX_CHARS)}\n… ${more} more characters`;
}

/**
 * Turns a session's messages into ACP `session/update`s, one task at a time: the model's text and
 * thinking as chunks, each tool call as a `tool_call` (pending) and then `tool_call_update`s
 * (in progress once allowed, completed or failed with its output). A subagent's own messages
 * are left out: its work shows as the parent's call.
 */
export class UpdateTranslator {
  private readonly views = new Map<string, CallView>();
  /** Denied calls: the output the model is given for them does not make them "completed". */
  private readonly denied = new Set<string>();
  /** Whether the current model message came as deltas (then its complete record adds nothing). */
  private streamedText = false;
  private streamedThinking = false;

  /**
   * `replay`: the messages are a session's history (`session/load`): the user's own prompts are
   * sent too, and no diff is shown (the files have changed since).
   */
  constructor(
    private readonly cwd: () => string,
    private readonly replay = false,
    /** The editor's text of files, for diffs, when the session's files go through the editor. */
    private readonly editorText?: EditorText,
  ) {}

  /** The view of a call seen in this task (for its permission request). */
  viewOf(toolCallId: string): CallView | undefined {
    return this.views.get(toolCallId);
  }

  translate(message: OmniMessage): SessionUpdate[] {
    if (message.type === "session_meta") return [];
    if (message.origin !== undefined && message.origin.length > 0) return [];
    const p = message.payload;
    switch (p.type) {
      case "partial_text":
        if (p.event_type !== "delta" || p.role === "user" || p.text === "") return [];
        this.streamedText = true;
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p.text } }];
      case "partial_thinking":
        if (p.event_type !== "delta" || p.thinking === "") return [];
        this.streamedThinking = true;
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: p.thinking } }];
      case "text": {
        if (p.role === "user") {
          const typedByUser = p.sender === undefined || p.sender === "user";
          if (!this.replay || !typedByUser || p.text === "") return [];
          return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: p.text } }];
        }
        const streamed = this.streamedText;
        this.streamedText = false;
        if (streamed || p.text === "") return [];
        return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p.text } }];
      }
      case "thinking": {
        const streamed = this.streamedThinking;
        this.streamedThinking = false;
        if (streamed || p.thinking === "") return [];
        return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: p.thinking } }];
      }
      case "tool_call":
        return [this.callAnnounced(p.tool_call_id, p.name, p.arguments)];
      case "approval_decision":
        if (p.decision === "allow")
          return [{ sessionUpdate: "tool_call_update", toolCallId: p.tool_call_id, status: "in_progress" }];
        this.denied.add(p.tool_call_id);
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: p.tool_call_id,
            status: "failed",
            content: [textContent(`Denied${p.reason ? `: ${p.reason}` : ""}`)],
          },
        ];
      case "tool_call_output": {
        if (this.denied.has(p.tool_call_id)) return [];
        const view = this.views.get(p.tool_call_id);
        const failed = p.stop_reason !== undefined && p.stop_reason !== "completed";
        const content: ToolCallContent[] = [];
        if (view?.diff && !failed) content.push(view.diff);
        if (p.output !== "") content.push(textContent(clipped(p.output)));
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: p.tool_call_id,
            status: failed ? "failed" : "completed",
            content,
          },
        ];
      }
      case "plan_updated":
        return [planUpdate(p)];
      default:
        return [];
    }
  }

  private callAnnounced(toolCallId: string, name: string, argumentsJson: string): SessionUpdate {
    const view = viewOfCall(name, argumentsJson, this.cwd(), this.editorText);
    if (this.replay) view.diff = undefined;
    this.views.set(toolCallId, view);
    return { sessionUpdate: "tool_call", ...pendingCallFields(toolCallId, view) };
  }
}
