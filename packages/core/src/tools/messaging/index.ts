// The messaging tools (send_message, wait_messages, ask), the inboxes of a session's agents and the
// answerer port of its root agent's questions to the user.
import { MESSAGING_TOOL_NAMES } from "@penguin/state";
import type { ToolFactory } from "../../environment/types.js";
import { createAskTool } from "./ask.js";
import type { Mailbox } from "./hub.js";
import { createSendMessageTool } from "./send-message.js";
import { createWaitMessagesTool } from "./wait-messages.js";

export { askTimeout, createAskTool, NOBODY_ANSWERS_MESSAGE } from "./ask.js";
export {
  type AskOutcome,
  type IdNumbers,
  type Mailbox,
  MESSAGE_ID_PREFIX,
  MessageHub,
  type SendOutcome,
} from "./hub.js";
export {
  type AgentMessage,
  DEFAULT_INBOX_LIMITS,
  type FinishedAgent,
  Inbox,
  type InboxLimits,
} from "./inbox.js";
export type { Answer } from "./questions.js";
export { nextIdNumbers, nextMessageNumber } from "./restored.js";
export { createSendMessageTool, NO_MAILBOX_MESSAGE } from "./send-message.js";
export { type OnAsk, UserAnswerers, type UserQuestion } from "./user-answerers.js";
export { createWaitMessagesTool, formatMessages, waitTimeout } from "./wait-messages.js";
export { MESSAGING_TOOL_NAMES };

/** Factories of the messaging tools bound to one agent's mailbox, for `createBuiltinTools`. */
export function messagingToolFactories(mailbox: Mailbox | undefined): Record<string, ToolFactory> {
  return {
    send_message: (definition) => createSendMessageTool(definition, mailbox),
    wait_messages: (definition) => createWaitMessagesTool(definition, mailbox),
    ask: (definition) => createAskTool(definition, mailbox),
  };
}
