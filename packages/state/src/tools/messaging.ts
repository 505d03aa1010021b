import { STOP_AGENT_DEFINITION } from "./agents.js";
import type { ToolDefinitionConfig } from "./definition-parts.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, objectSchema } from "./definition-parts.js";

// send_message, wait_messages and ask: messages and questions between the agents of one session
// (its root agent and the children it runs) and from the root to the user, their definitions and
// every number their descriptions state. Core's tools/messaging/ implements them with these
// constants.

/** The agent run id of a session's own (top-level) agent: "to `root` or to a running agent's id". */
export const ROOT_AGENT_RUN_ID = "root";

/** "Bounded inboxes (count and bytes)": the most messages that may wait in one agent's inbox. */
export const MAX_INBOX_MESSAGES = 64;
/** "Bounded inboxes (count and bytes)": the most UTF-8 bytes of text that may wait in one inbox. */
export const MAX_INBOX_BYTES = 256 * 1024;
/** wait_messages: "a `timeout_ms` argument with a documented default …". */
export const DEFAULT_WAIT_MESSAGES_TIMEOUT_MS = 60_000;
/** "… and maximum": a larger `timeout_ms` is clamped to it (the result says so). */
export const MAX_WAIT_MESSAGES_TIMEOUT_MS = 600_000;
/** The Environment's per-call timeout must outlast the longest wait. */
const WAIT_MESSAGES_CALL_TIMEOUT_MS = MAX_WAIT_MESSAGES_TIMEOUT_MS + 60_000;
/** Question ids are `q_<n>`, numbered per session ("marked as a question with its id"). */
export const QUESTION_ID_PREFIX = "q_";
/** Who the root agent's `ask` goes to: the `to` of its `question_asked` event. */
export const USER_ANSWERER = "user";
/** ask: "an optional `timeout_ms` (documented default …)": a person may take a while to answer. */
export const DEFAULT_ASK_TIMEOUT_MS = 600_000;
/** "… and maximum": a larger `timeout_ms` is clamped to it (the result says so). */
export const MAX_ASK_TIMEOUT_MS = 3_600_000;
/** The Environment's per-call timeout must outlast the longest question. */
const ASK_CALL_TIMEOUT_MS = MAX_ASK_TIMEOUT_MS + 60_000;

export const SEND_MESSAGE_DEFINITION: ToolDefinitionConfig = {
  name: "send_message",
  description: `Send a text message to another agent of this session: "${ROOT_AGENT_RUN_ID}" (the top-level agent) or a running child's id (e.g. sub_1). It waits in the recipient's inbox until it calls wait_messages; with reply_to it answers that agent's question instead. Fails if the recipient is unknown, finished, or its inbox is full.`,
  parameters: objectSchema(
    {
      to: { type: "string", minLength: 1, description: `"${ROOT_AGENT_RUN_ID}" or a running child's id.` },
      text: { type: "string", description: "The message." },
      reply_to: {
        type: "string",
        minLength: 1,
        description: `A question id (${QUESTION_ID_PREFIX}N) that \`to\` asked you: the text is its answer.`,
      },
    },
    ["to", "text"],
  ),
  // Sending changes no file: it only fills another agent's bounded inbox.
  permission: "r",
  timeoutMs: 30_000,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const WAIT_MESSAGES_DEFINITION: ToolDefinitionConfig = {
  name: "wait_messages",
  description: `Return the messages waiting in your inbox (sender, time, id), or wait for one up to timeout_ms (max ${MAX_WAIT_MESSAGES_TIMEOUT_MS}).`,
  parameters: objectSchema(
    {
      timeout_ms: {
        type: "integer",
        minimum: 0,
        default: DEFAULT_WAIT_MESSAGES_TIMEOUT_MS,
        description: "How long to wait when no message is waiting; 0 returns at once.",
      },
    },
    [],
  ),
  permission: "r",
  timeoutMs: WAIT_MESSAGES_CALL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const ASK_DEFINITION: ToolDefinitionConfig = {
  name: "ask",
  description: `Ask a question and wait for the answer: a child agent asks the agent that started it, the top-level agent asks the user. Waits up to timeout_ms (max ${MAX_ASK_TIMEOUT_MS}); ask only what you cannot find out yourself.`,
  parameters: objectSchema(
    {
      question: { type: "string", minLength: 1, description: "The question, complete on its own." },
      timeout_ms: {
        type: "integer",
        minimum: 0,
        default: DEFAULT_ASK_TIMEOUT_MS,
        description: "How long to wait for the answer.",
      },
    },
    ["question"],
  ),
  // Asking changes no file: it only waits for someone's answer.
  permission: "r",
  timeoutMs: ASK_CALL_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const MESSAGING_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = [
  SEND_MESSAGE_DEFINITION,
  WAIT_MESSAGES_DEFINITION,
  ASK_DEFINITION,
];

/**
 * The tools "every agent has … whatever `allowed_tools` says": the messaging tools (ask among
 * them), and stop_agent (an agent can always stop what it launched). The one list of them: a
 * session's allowed tools and a child's are widened by it (core's sdk/allowed-tools.ts).
 */
export const MESSAGING_TOOL_NAMES: readonly string[] = [
  ...MESSAGING_TOOL_DEFINITIONS.map((tool) => tool.name),
  STOP_AGENT_DEFINITION.name,
];
