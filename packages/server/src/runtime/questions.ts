import type { UserQuestion } from "@penguin/core";
import { RECENT_DECISIONS_KEPT } from "../limits.js";

/** A question of the session's agent that waits for the user, as the API and `question_request` show it. */
export interface PendingQuestion {
  question_id: string;
  text: string;
  /** The `ask` call that waits for the answer. */
  tool_call_id: string;
  asked_at: string;
}

interface Waiter {
  view: PendingQuestion;
  answer(text: string): void;
}

export type AnswerResult = "answered" | "not_pending" | "already_answered";

/**
 * The questions of one session's agent (`ask`) that wait for the user. A question waits until
 * someone answers it through the API, or its asker stops waiting (the ask timed out, the task was
 * interrupted or ended): it is then no longer pending, and a later answer is refused.
 */
export class PendingQuestions {
  readonly #waiting = new Map<string, Waiter>();
  /** Ids closed here (answered or withdrawn), so a second answer gets 409, not 404. */
  readonly #closed = new Set<string>();

  constructor(private readonly onRequest: (pending: PendingQuestion) => void) {}

  /** The session's `onAsk`: registers the question and resolves with the user's answer. */
  ask(question: UserQuestion): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const { id, signal } = question;
      if (signal.aborted) return reject(new Error("the question was withdrawn"));
      const view: PendingQuestion = {
        question_id: id,
        text: question.text,
        tool_call_id: question.toolCallId,
        asked_at: new Date().toISOString(),
      };
      const onAbort = () => {
        this.#close(id);
        reject(new Error("the question was withdrawn"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(id, {
        view,
        answer: (text) => {
          signal.removeEventListener("abort", onAbort);
          resolve(text);
        },
      });
      this.onRequest(view);
    });
  }

  /** The user's answer to question `id`. */
  answer(id: string, text: string): AnswerResult {
    const waiter = this.#waiting.get(id);
    if (!waiter) return this.#closed.has(id) ? "already_answered" : "not_pending";
    this.#close(id);
    waiter.answer(text);
    return "answered";
  }

  /** Waiting questions, oldest first. */
  list(): PendingQuestion[] {
    return [...this.#waiting.values()].map((waiter) => waiter.view);
  }

  #close(id: string): void {
    this.#waiting.delete(id);
    this.#closed.add(id);
    if (this.#closed.size > RECENT_DECISIONS_KEPT) {
      const oldest = this.#closed.values().next().value;
      if (oldest !== undefined) this.#closed.delete(oldest);
    }
  }
}
