import { messageSent, type OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import { optionalStringArg, readArguments, stringArg } from "../files/file-tool-support.js";
import type { Mailbox } from "./hub.js";
import { messageEventFields } from "./inbox.js";

/** The message of a session that has no inbox (a tool made outside a session's agent runtime). */
export const NO_MAILBOX_MESSAGE =
  "this agent has no inbox: messages work only between the agents of one session (its top-level agent and the children it runs).";

/**
 * `send_message {to, text, reply_to?}`: puts a message into another agent's inbox. The sender's
 * trace gets a `message_sent` event (the recipient's gets `message_delivered` with the same
 * `message_id` when it reads it). With `reply_to` the text answers the recipient's open question
 * of that id: its `ask` returns it and nothing waits in its inbox. An unknown or finished
 * recipient, a full inbox, an empty text or a `reply_to` that names no open question of the
 * recipient fail the call with the reason; nothing is sent then.
 */
export function createSendMessageTool(
  definition: ToolDefinitionConfig,
  mailbox: Mailbox | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!mailbox) return yield* fail(ctx, NO_MAILBOX_MESSAGE);
    const input = readArguments(args, ctx.workspaceDir, {
      to: stringArg("to"),
      text: stringArg("text"),
      replyTo: optionalStringArg("reply_to"),
    });
    if (!input.ok) return yield* fail(ctx, input.error);
    const { to, text, replyTo } = input.value;
    if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[not sent: the call was aborted]" };
    const sent = mailbox.hub.send(mailbox.self, to, text, replyTo);
    if (!sent.ok) return yield* fail(ctx, sent.error);
    const { message } = sent;
    yield messageSent(messageEventFields(message, ctx.toolCallId));
    if (message.replyTo !== undefined) {
      yield* textDelta(ctx.toolCallId, `Message ${message.id} answered ${message.replyTo} of ${message.to}.`);
      return { stopReason: "completed" };
    }
    const waiting = mailbox.hub.inbox(message.to)?.size ?? 1;
    const count = waiting === 1 ? "1 message waits" : `${waiting} messages wait`;
    yield* textDelta(ctx.toolCallId, `Message ${message.id} sent to ${message.to} (${count} in its inbox).`);
    return { stopReason: "completed" };
  }

  return { name: definition.name, definition, execute };
}
