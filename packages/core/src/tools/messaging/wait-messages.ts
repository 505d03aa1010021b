import { agentFinished, messageDelivered, type OmniMessage } from "@penguin/protocol";
import {
  DEFAULT_WAIT_MESSAGES_TIMEOUT_MS,
  MAX_WAIT_MESSAGES_TIMEOUT_MS,
  type ToolDefinitionConfig,
} from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import type { Mailbox } from "./hub.js";
import { type AgentMessage, messageEventFields } from "./inbox.js";
import { NO_MAILBOX_MESSAGE } from "./send-message.js";
import { type TimeoutArg, timeoutArg } from "./timeout-arg.js";

/** `timeout_ms` as the call runs with it: the default when absent, the maximum when larger. */
export function waitTimeout(value: unknown): TimeoutArg {
  return timeoutArg(value, "wait_messages", DEFAULT_WAIT_MESSAGES_TIMEOUT_MS, MAX_WAIT_MESSAGES_TIMEOUT_MS);
}

/** How the model reads delivered messages: a header per message (id, sender, time), then its text. */
export function formatMessages(messages: readonly AgentMessage[]): string {
  const head = messages.length === 1 ? "1 message:" : `${messages.length} messages:`;
  const blocks = messages.map((m) =>
    m.questionId
      ? `[${m.id}] question ${m.questionId} from ${m.from} at ${m.sentAt} (it waits for your answer: send_message to "${m.from}" with reply_to "${m.questionId}"):\n${m.text}`
      : `[${m.id}] from ${m.from} at ${m.sentAt}:\n${m.text}`,
  );
  return `${head}\n\n${blocks.join("\n\n")}`;
}

/**
 * `wait_messages {timeout_ms?}`: returns at once with the messages waiting in the caller's inbox,
 * else waits until one arrives, the timeout ends (clamped to the maximum, and the output says so)
 * or the call is interrupted, which ends the wait at once. Each message handed to the model is a
 * `message_delivered` event in the caller's trace.
 */
export function createWaitMessagesTool(
  definition: ToolDefinitionConfig,
  mailbox: Mailbox | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!mailbox) return yield* fail(ctx, NO_MAILBOX_MESSAGE);
    const timeout = waitTimeout(args.timeout_ms);
    if (!timeout.ok) return yield* fail(ctx, timeout.error);
    const inbox = mailbox.hub.inbox(mailbox.self) ?? mailbox.hub.open(mailbox.self);
    // Another call of the same agent may take what woke this one: wait on until the deadline.
    const deadline = Date.now() + timeout.ms;
    let messages: AgentMessage[] = [];
    for (;;) {
      await inbox.waitForArrival(deadline - Date.now(), ctx.signal);
      // An interrupted call hands nothing over: what waits stays in the inbox for the next call.
      if (ctx.signal?.aborted) break;
      messages = inbox.takeAll();
      if (messages.length > 0 || Date.now() >= deadline) break;
    }
    const clampNote = timeout.clamped
      ? `\n[timeout_ms was clamped to the maximum, ${MAX_WAIT_MESSAGES_TIMEOUT_MS} ms]`
      : "";
    if (messages.length === 0) {
      if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[the wait was interrupted]" };
      yield* textDelta(
        ctx.toolCallId,
        `No message arrived for ${mailbox.self} within ${timeout.ms} ms.${clampNote}`,
      );
      return { stopReason: "completed" };
    }
    for (const message of messages) {
      yield messageDelivered(messageEventFields(message, ctx.toolCallId));
      // A child's report of its end: the launcher's trace records that it learned it here.
      const finished = message.finished;
      if (finished) {
        yield agentFinished({
          agent_run_id: finished.agentRunId,
          status: finished.status,
          ...(finished.message ? { message: finished.message } : {}),
          message_id: message.id,
          tool_call_id: ctx.toolCallId,
        });
      }
    }
    yield* textDelta(ctx.toolCallId, `${formatMessages(messages)}${clampNote}`);
    return { stopReason: "completed" };
  }

  return { name: definition.name, definition, execute };
}
