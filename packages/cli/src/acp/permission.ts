import type { AgentContext, PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type { AskFn, HumanAnswer } from "@penguin/core";
import { suggestedPrefixOf } from "@penguin/core";
import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { pendingCallFields, viewOfCall } from "./tool-calls.js";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT_ONCE = "reject_once";
const REJECT_ALWAYS = "reject_always";

/** The rule "allow always" grants: commands with the call's prefix for exec_command, else the tool. */
function alwaysRule(call: OmniMessage<ToolCallPayload>): { tool: string } | { commandPrefix: string } {
  const prefix = suggestedPrefixOf(call);
  return prefix === undefined ? { tool: call.payload.name } : { commandPrefix: prefix };
}

export function permissionOptions(call: OmniMessage<ToolCallPayload>): PermissionOption[] {
  const rule = alwaysRule(call);
  const always =
    "commandPrefix" in rule
      ? `Always allow commands starting with "${rule.commandPrefix}"`
      : `Always allow ${rule.tool}`;
  return [
    { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
    { optionId: ALLOW_ALWAYS, name: always, kind: "allow_always" },
    { optionId: REJECT_ONCE, name: "Reject", kind: "reject_once" },
    { optionId: REJECT_ALWAYS, name: `Always reject ${call.payload.name}`, kind: "reject_always" },
  ];
}

/**
 * What an answer means to Penguin: allow once / reject once are a human's allow and deny;
 * allow always also grants the session rule (the command prefix or the tool); reject always
 * denies and, through `rejectAlways`, every later call of the tool is denied without asking.
 * A cancelled request (the prompt was cancelled) denies.
 */
export function answerOf(
  outcome: RequestPermissionOutcome,
  call: OmniMessage<ToolCallPayload>,
  rejectAlways: (tool: string) => void,
): HumanAnswer {
  if (outcome.outcome === "cancelled") return { decision: "deny", reason: "the prompt was cancelled" };
  switch (outcome.optionId) {
    case ALLOW_ONCE:
      return "allow";
    case ALLOW_ALWAYS:
      return { decision: "allow", remember: alwaysRule(call) };
    case REJECT_ALWAYS:
      rejectAlways(call.payload.name);
      return { decision: "deny", reason: `the user rejects every ${call.payload.name} call in this session` };
    default:
      return "deny";
  }
}

export interface EditorAskOptions {
  client: AgentContext;
  sessionId: string;
  /** The session's current folder (for the call's paths). */
  cwd: () => string;
  /** Tools the user rejected for the rest of the session. */
  rejected: Set<string>;
}

/**
 * Asks the editor's user about one call with `session/request_permission`. The task's abort
 * cancels the request (the client answers it as cancelled), so a cancelled prompt leaves no
 * question open.
 */
export function editorAsk(opts: EditorAskOptions): AskFn {
  return async (call, request) => {
    const { name, arguments: argumentsJson, tool_call_id: toolCallId } = call.payload;
    if (opts.rejected.has(name)) {
      return { decision: "deny", reason: `the user rejects every ${name} call in this session` };
    }
    if (request.signal?.aborted) return { decision: "deny", reason: "the prompt was cancelled" };
    const view = viewOfCall(name, argumentsJson, opts.cwd());
    const response = await opts.client.request(
      "session/request_permission",
      {
        sessionId: opts.sessionId,
        toolCall: pendingCallFields(toolCallId, view),
        options: permissionOptions(call),
      },
      request.signal ? { cancellationSignal: request.signal, stopWaitingOnCancel: true } : {},
    );
    return answerOf(response.outcome, call, (tool) => opts.rejected.add(tool));
  };
}
