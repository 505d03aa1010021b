/** A question the root agent asks the user, as a front end's answerer receives it. */
export interface UserQuestion {
  /** The question's id (`q_N`), as the `question_asked` event of the trace names it. */
  id: string;
  text: string;
  /** The session whose agent asks. */
  sessionId: string;
  /** The `ask` call that waits for the answer. */
  toolCallId: string;
  /**
   * Aborts when nobody needs the answer any more (the ask timed out, or the task was
   * interrupted): stop asking, and settle with anything (it is ignored).
   */
  signal: AbortSignal;
}

/**
 * Answers the root agent's `ask`: resolves with the user's answer. A rejection fails the call and
 * its message is what the model reads, so say why nobody can answer and what to do instead.
 */
export type OnAsk = (question: UserQuestion) => Promise<string>;

/**
 * The session-level answerer port of the root agent: the answerer the session was created with
 * (`createSession({ onAsk })`) and the one the running task was given (`run(…, { onAsk })`),
 * which wins. Neither: `ask` fails saying that nobody can answer.
 */
export class UserAnswerers {
  /** The running task's answerer; each run sets it (undefined when the run has none). */
  run: OnAsk | undefined;

  constructor(readonly session?: OnAsk) {}

  get current(): OnAsk | undefined {
    return this.run ?? this.session;
  }
}
