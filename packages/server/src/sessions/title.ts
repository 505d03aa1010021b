import type { OmniMessage } from "@penguin/protocol";
import { MAX_TITLE_CHARS } from "../limits.js";

/**
 * The title an untitled session takes from its first message: that message's first non-blank
 * line, trimmed and cut to the title limit (no model is asked). Empty for a blank message.
 */
export function titleFromMessage(text: string): string {
  const line = text.split(/\r\n|\r|\n/).find((candidate) => candidate.trim() !== "") ?? "";
  return line.trim().slice(0, MAX_TITLE_CHARS).trim();
}

/** The title of an imported trace: from its first user text message; empty when it has none. */
export function titleFromRecords(records: readonly OmniMessage[]): string {
  for (const record of records) {
    const payload = record.payload as { type?: unknown; role?: unknown; text?: unknown };
    if (record.type === "model_msg" && payload.type === "text" && payload.role === "user") {
      if (typeof payload.text === "string") return titleFromMessage(payload.text);
    }
  }
  return "";
}
