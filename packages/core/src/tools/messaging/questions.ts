import { QUESTION_ID_PREFIX } from "@penguin/state";

/** The answer to a question: who answered, the text, and the message that carried it. */
export interface Answer {
  from: string;
  text: string;
  /** The `msg_N` of the answering send_message (its `message_sent` event has `reply_to`). */
  messageId: string;
}

interface OpenQuestion {
  id: string;
  /** The agent whose `ask` waits for the answer. */
  asker: string;
  /** The agent asked: only it can answer. */
  askee: string;
  settle(answer: Answer): void;
}

export type QuestionCheck = { ok: true } | { ok: false; error: string };

/**
 * The questions one agent put to another and still waits on. A question is open from the moment
 * it is put until it is answered or its asker stops waiting (timeout, interrupt); an answer to a
 * question that is not open is refused, so an answer never lands nowhere.
 */
export class OpenQuestions {
  private readonly open = new Map<string, OpenQuestion>();
  private nextNumber: number;

  /**
   * `firstNumber`: the number of the first question id (`q_<n>`); a resumed session starts past
   * the ids its traces hold, so an id names one question in the session.
   */
  constructor(firstNumber = 1) {
    this.nextNumber = firstNumber;
  }

  /** A new question id of the session (questions to the user take one too). */
  nextId(): string {
    return `${QUESTION_ID_PREFIX}${this.nextNumber++}`;
  }

  /** Opens question `id` of `asker` to `askee`; resolves with its answer. */
  register(id: string, asker: string, askee: string): Promise<Answer> {
    return new Promise<Answer>((resolve) => {
      this.open.set(id, { id, asker, askee, settle: resolve });
    });
  }

  /** Whether `answerer` may answer question `id` of `asker` now, and if not, why. */
  check(answerer: string, asker: string, id: string): QuestionCheck {
    const question = this.open.get(id);
    if (!question) {
      return {
        ok: false,
        error: `reply_to "${id}" names no open question: it was answered already, its asker stopped waiting (timed out or was interrupted), or it never existed. Nothing was sent; send without reply_to to tell "${asker}" anyway.`,
      };
    }
    if (question.asker !== asker) {
      return {
        ok: false,
        error: `reply_to "${id}" is a question of "${question.asker}", not of "${asker}"; nothing was sent. Send the answer to "${question.asker}".`,
      };
    }
    if (question.askee !== answerer) {
      return {
        ok: false,
        error: `reply_to "${id}" was asked of "${question.askee}", not of you ("${answerer}"); nothing was sent.`,
      };
    }
    return { ok: true };
  }

  /** Hands the answer to the waiting asker and closes the question. */
  answer(id: string, answer: Answer): void {
    const question = this.open.get(id);
    if (!question) return;
    this.open.delete(id);
    question.settle(answer);
  }

  /** Closes a question nobody answered (its asker stopped waiting); later answers are refused. */
  withdraw(id: string): { askee: string } | undefined {
    const question = this.open.get(id);
    if (!question) return undefined;
    this.open.delete(id);
    return { askee: question.askee };
  }
}
