import { type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent, useState } from "react";
import { api } from "../api/client.js";
import { AttachmentList } from "./attachment-list.js";
import {
  type Attachment,
  attachmentProblem,
  imagesOf,
  inputWithAttachments,
  readAttachment,
} from "./attachments.js";
import { ErrorText } from "./error-text.js";

/**
 * The goal switch's token budget as the server takes it: empty for none, else a whole number
 * above 0 (anything else is refused before it is sent).
 */
function parseBudget(text: string): number | undefined | "invalid" {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (!/^[0-9]+$/.test(trimmed)) return "invalid";
  const budget = Number(trimmed);
  return Number.isSafeInteger(budget) && budget > 0 ? budget : "invalid";
}

/**
 * Idle: the text starts a task (with the Goal switch on, in goal mode: worked on until done,
 * blocked or out of budget). Running: it steers the task (delivered with its next request).
 */
export function Composer({
  sessionId,
  running,
  compacting,
}: {
  sessionId: string;
  running: boolean;
  compacting: boolean;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [goalMode, setGoalMode] = useState(false);
  const [budgetText, setBudgetText] = useState("");
  const [failure, setFailure] = useState<unknown>();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [refusals, setRefusals] = useState<string[]>([]);
  const budget = parseBudget(budgetText);
  const budgetInvalid = goalMode && budget === "invalid";
  const problem = attachmentProblem(text.trim(), attachments);

  /** Files dropped, pasted or picked: each read as an image or a text file, or refused with why. */
  const attach = async (files: readonly File[]) => {
    if (files.length === 0) return;
    const read = await Promise.all(files.map(readAttachment));
    setAttachments((current) => [...current, ...read.filter((r): r is Attachment => !("refused" in r))]);
    setRefusals(read.flatMap((r) => ("refused" in r ? [r.refused] : [])));
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    if (running || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    void attach([...event.dataTransfer.files]);
  };
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    // Pasted text stays text; pasted files (a screenshot) become attachments.
    if (running || event.clipboardData.files.length === 0) return;
    event.preventDefault();
    void attach([...event.clipboardData.files]);
  };

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const input = text.trim();
    if (!input || compacting || budgetInvalid || problem) return;
    setBusy(true);
    setFailure(undefined);
    try {
      if (running) await api.steer(sessionId, input);
      else {
        const goal = goalMode && budget !== "invalid" ? (budget === undefined ? {} : { budget }) : undefined;
        await api.startTask(sessionId, inputWithAttachments(input, attachments), goal, imagesOf(attachments));
        setAttachments([]);
        setRefusals([]);
      }
      setText("");
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  const abort = async () => {
    setFailure(undefined);
    try {
      await api.abort(sessionId);
    } catch (caught) {
      setFailure(caught);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) void send();
  };

  const placeholder = running
    ? "Steer the running task…"
    : goalMode
      ? "Describe the goal… (Ctrl+Enter starts it)"
      : "Ask for something… (Ctrl+Enter sends)";
  return (
    <form
      className="composer card"
      onSubmit={send}
      aria-label="Message"
      onDragOver={(event) => {
        if (!running) event.preventDefault();
      }}
      onDrop={onDrop}
    >
      <textarea
        name="input"
        rows={3}
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      {!running && (
        <AttachmentList
          attachments={attachments}
          refusals={refusals}
          problem={problem}
          onAdd={(files) => void attach(files)}
          onRemove={(index) => setAttachments((current) => current.filter((_, i) => i !== index))}
        />
      )}
      <div className="composer-buttons">
        <button
          type="submit"
          disabled={busy || compacting || budgetInvalid || problem !== undefined || text.trim() === ""}
        >
          {running ? "Steer" : goalMode ? "Start goal" : "Send"}
        </button>
        {(running || compacting) && (
          <button type="button" className="deny" onClick={abort}>
            Abort
          </button>
        )}
        {!running && (
          <div className="goal-options">
            <label title="Work on the text as a goal, round after round, until the model marks it complete or blocked, or the budget is spent">
              <input
                type="checkbox"
                role="switch"
                aria-checked={goalMode}
                checked={goalMode}
                onChange={(e) => setGoalMode(e.target.checked)}
              />{" "}
              Goal
            </label>
            {goalMode && (
              <input
                type="number"
                min={1}
                step={1}
                inputMode="numeric"
                aria-label="Token budget"
                aria-invalid={budgetInvalid}
                placeholder="Token budget (optional)"
                value={budgetText}
                onChange={(e) => setBudgetText(e.target.value)}
              />
            )}
          </div>
        )}
      </div>
      {budgetInvalid && (
        <p className="error" role="alert">
          The token budget is a whole number above 0, or empty for none.
        </p>
      )}
      <ErrorText error={failure} />
    </form>
  );
}
