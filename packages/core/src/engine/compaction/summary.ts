import { block } from "../markers.js";

/** The block the model writes its summary in, and the one the new context starts with. */
export const SUMMARY_TAG = "summary";
export const CONTEXT_SUMMARY_TAG = "context_summary";

export type SummaryCheck = { ok: true; summary: string } | { ok: false; problem: string };

/**
 * The summary of a compaction reply: the text between the first `[summary]` and the
 * `[/summary]` after it. A reply without the opening tag, without the closing one (cut off), or
 * with only blanks between them is not a summary.
 */
export function extractSummary(reply: string): SummaryCheck {
  const open = `[${SUMMARY_TAG}]`;
  const close = `[/${SUMMARY_TAG}]`;
  const start = reply.indexOf(open);
  if (start < 0) return { ok: false, problem: `the reply has no ${open} block` };
  const end = reply.indexOf(close, start + open.length);
  if (end < 0) return { ok: false, problem: `the ${open} block was never closed with ${close} (cut off?)` };
  const summary = reply.slice(start + open.length, end).trim();
  if (summary === "") return { ok: false, problem: `the ${open} block is empty` };
  return { ok: true, summary };
}

/** The first message of a compacted context; `openWork` lists what was still open, if anything. */
export function contextSummaryText(summary: string, openWork?: string): string {
  return block(
    CONTEXT_SUMMARY_TAG,
    `The conversation before this point was compacted to save context; this is its summary, written by you. The user's messages of the task in progress, if any, follow it.\n${summary}${openWork ? `\n\n${openWork}` : ""}`,
  );
}

/** The first message of a context whose oldest turns were dropped. */
export function discardNoticeText(droppedTurns: number): string {
  const what = droppedTurns === 1 ? "1 earlier turn was" : `${droppedTurns} earlier turns were`;
  return block(
    CONTEXT_SUMMARY_TAG,
    `${what} dropped from the start of this conversation to save context; what follows is the rest of it as it was.`,
  );
}

/** Appended after a reply that was no summary, so the next attempt knows what went wrong. */
export function correctiveNoteText(problem: string): string {
  return `Your previous reply could not be used as the summary: ${problem}. Do not call tools. Reply with the summary between [${SUMMARY_TAG}] and [/${SUMMARY_TAG}].`;
}
