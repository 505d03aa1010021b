import { errorMessage, type OmniMessage, questionAnswered, questionAsked } from "@penguin/protocol";
import {
  DEFAULT_ASK_TIMEOUT_MS,
  MAX_ASK_TIMEOUT_MS,
  type ToolDefinitionConfig,
  USER_ANSWERER,
} from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { fail, textDelta } from "../call-text.js";
import { readArguments, stringArg } from "../files/file-tool-support.js";
import type { Mailbox } from "./hub.js";
import type { Answer } from "./questions.js";
import { NO_MAILBOX_MESSAGE } from "./send-message.js";
import { type TimeoutArg, timeoutArg } from "./timeout-arg.js";

/** The failure of the root's `ask` in a session that has no answerer for the user. */
export const NOBODY_ANSWERS_MESSAGE =
  "no one can answer questions in this session: it has no way to reach the user (an SDK session needs an onAsk answerer). Go on with what you know, or end your reply with the question so the user reads it.";

/** `timeout_ms` of ask as the call runs with it: the default when absent, the maximum when larger. */
export function askTimeout(value: unknown): TimeoutArg {
  return timeoutArg(value, "ask", DEFAULT_ASK_TIMEOUT_MS, MAX_ASK_TIMEOUT_MS);
}

type Waited<T> =
  | { kind: "answer"; value: T }
  | { kind: "failed"; error: string }
  | { kind: "timeout" | "aborted" };

/** Waits for `answer` until `ms` pass or `signal` aborts, whichever is first. */
function waitFor<T>(answer: Promise<T>, ms: number, signal?: AbortSignal): Promise<Waited<T>> {
  if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
  return new Promise((resolve) => {
    const timer = setTimeout(() => done({ kind: "timeout" }), ms);
    const onAbort = () => done({ kind: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
    function done(outcome: Waited<T>) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    }
    answer.then(
      (value) => done({ kind: "answer", value }),
      (error: unknown) => done({ kind: "failed", error: errorMessage(error) }),
    );
  });
}

/**
 * `ask {question, timeout_ms?}`: asks and waits for the answer. A child asks the agent that started
 * it: the question goes into that agent's inbox (as `q_N`), which answers with send_message and
 * `reply_to`. The root agent asks the user through the session's answerer (`onAsk`). The asker's
 * trace records `question_asked` and, when an answer comes, `question_answered`; a timeout or an
 * interrupt withdraws the question (a later answer is refused), and without anyone to answer the
 * call fails saying so.
 */
export function createAskTool(definition: ToolDefinitionConfig, mailbox: Mailbox | undefined): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    if (!mailbox) return yield* fail(ctx, NO_MAILBOX_MESSAGE);
    const input = readArguments(args, ctx.workspaceDir, { question: stringArg("question") });
    if (!input.ok) return yield* fail(ctx, input.error);
    const text = input.value.question;
    if (text.trim() === "") return yield* fail(ctx, "ask needs a non-empty question; nothing was asked.");
    const timeout = askTimeout(args.timeout_ms);
    if (!timeout.ok) return yield* fail(ctx, timeout.error);
    if (ctx.signal?.aborted) return { stopReason: "aborted", note: "[not asked: the call was aborted]" };
    const clampNote = timeout.clamped
      ? `\n[timeout_ms was clamped to the maximum, ${MAX_ASK_TIMEOUT_MS} ms]`
      : "";
    const asking =
      mailbox.parent === undefined
        ? askUser(mailbox, text, timeout.ms, ctx)
        : askParent(mailbox, mailbox.parent, text, timeout.ms, ctx);
    const outcome = yield* asking;
    if (outcome.kind === "aborted") {
      return { stopReason: "aborted", note: `[the question was withdrawn: the call was interrupted]` };
    }
    if (outcome.kind === "failed") return yield* fail(ctx, `${outcome.error}${clampNote}`);
    if (outcome.kind === "timeout") {
      const { id, askee } = outcome;
      return yield* fail(
        ctx,
        `No answer to ${id} from ${askee} within ${timeout.ms} ms; the question is withdrawn (a late answer is refused). Go on without the answer, or ask again.${clampNote}`,
      );
    }
    const { id, answer } = outcome;
    yield questionAnswered({
      question_id: id,
      from: answer.from,
      text: answer.text,
      tool_call_id: ctx.toolCallId,
    });
    yield* textDelta(ctx.toolCallId, `Answer to ${id} from ${answer.from}:\n${answer.text}${clampNote}`);
    return { stopReason: "completed" };
  }

  return { name: definition.name, definition, execute };
}

type Asked =
  | { kind: "answered"; id: string; answer: Answer | Omit<Answer, "messageId"> }
  | { kind: "timeout"; id: string; askee: string }
  | { kind: "failed"; error: string }
  | { kind: "aborted" };

/** A child's question, put into its parent's inbox and answered by the parent's send_message. */
async function* askParent(
  mailbox: Mailbox,
  parent: string,
  text: string,
  ms: number,
  ctx: ToolExecutionContext,
): AsyncGenerator<OmniMessage, Asked> {
  const asked = mailbox.hub.ask(mailbox.self, parent, text);
  if (!asked.ok)
    return { kind: "failed", error: `Your question could not be put to "${parent}": ${asked.error}` };
  const id = asked.questionId;
  yield questionAsked({
    question_id: id,
    from: mailbox.self,
    to: parent,
    text,
    tool_call_id: ctx.toolCallId,
  });
  const waited = await waitFor(asked.answer, ms, ctx.signal);
  if (waited.kind === "answer") return { kind: "answered", id, answer: waited.value };
  mailbox.hub.withdraw(id, asked.message.id);
  return waited.kind === "timeout" ? { kind: "timeout", id, askee: parent } : { kind: "aborted" };
}

/** The root's question, put to the user through the session's answerer. */
async function* askUser(
  mailbox: Mailbox,
  text: string,
  ms: number,
  ctx: ToolExecutionContext,
): AsyncGenerator<OmniMessage, Asked> {
  const onAsk = mailbox.user?.current;
  if (!onAsk) return { kind: "failed", error: NOBODY_ANSWERS_MESSAGE };
  const id = mailbox.hub.questions.nextId();
  yield questionAsked({
    question_id: id,
    from: mailbox.self,
    to: USER_ANSWERER,
    text,
    tool_call_id: ctx.toolCallId,
  });
  // The answerer's signal tells a front end to stop asking (the prompt closes, the card goes).
  const stop = new AbortController();
  const answer = Promise.resolve().then(() =>
    onAsk({ id, text, sessionId: ctx.sessionId, toolCallId: ctx.toolCallId, signal: stop.signal }),
  );
  const waited = await waitFor(answer, ms, ctx.signal);
  if (waited.kind === "answer") {
    return { kind: "answered", id, answer: { from: USER_ANSWERER, text: waited.value } };
  }
  stop.abort(new Error(waited.kind === "timeout" ? "the question timed out" : "the task was interrupted"));
  if (waited.kind === "failed") return { kind: "failed", error: `${id} was not answered: ${waited.error}` };
  return waited.kind === "timeout" ? { kind: "timeout", id, askee: USER_ANSWERER } : { kind: "aborted" };
}
