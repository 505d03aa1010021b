import { type FormEvent, useState } from "react";
import { api } from "../api/client.js";
import type { PendingQuestion } from "../api/types.js";
import { ErrorText } from "./error-text.js";

/** A question of the agent that waits for you: its text, and a box to answer it. */
export function QuestionCard({ sessionId, question }: { sessionId: string; question: PendingQuestion }) {
  const [answer, setAnswer] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (answer.trim() === "") return;
    setBusy(true);
    setFailure(undefined);
    try {
      await api.answerQuestion(sessionId, question.question_id, answer);
      // The card goes away when the stream reports the answer (in every open viewer).
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };

  return (
    <form
      className="question-card"
      data-testid="question-card"
      data-question-id={question.question_id}
      onSubmit={submit}
    >
      <p className="question-text">
        <span className="badge">{question.question_id}</span> {question.text}
      </p>
      <div className="question-answer">
        <input
          type="text"
          aria-label={`Answer to ${question.question_id}`}
          value={answer}
          disabled={busy}
          onChange={(event) => setAnswer(event.target.value)}
        />
        <button type="submit" disabled={busy || answer.trim() === ""}>
          Answer
        </button>
      </div>
      <ErrorText error={failure} />
    </form>
  );
}
