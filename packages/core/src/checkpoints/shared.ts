import type { OmniMessage } from "@penguin/protocol";
import { readSession, type TraceLocation, type TraceWriter } from "@penguin/trace";
import { CheckpointBook } from "./book.js";
import { BlobStore } from "./store.js";

// One checkpoint book per top-level session, shared with every agent of its tree: a subagent's or
// a named agent's tool writes into the book of the session at the top (its store is in that
// session's scratchpad, its records in that session's trace), so reverting the task that
// launched them reverts their changes too.

const books = new Map<string, { book: CheckpointBook; trace: TraceWriter }>();

export interface CheckpointBookInput {
  sessionId: string;
  /** The top-level session of the tree (the session itself when it is one). */
  rootSessionId: string;
  scratchpadDir: string;
  trace: TraceWriter;
  location: TraceLocation;
}

/** The book the session's tools write into: its own (a top-level session's) or its root's. */
export function checkpointBookFor(input: CheckpointBookInput): CheckpointBook {
  if (input.rootSessionId !== input.sessionId) {
    const shared = books.get(input.rootSessionId);
    if (shared && !shared.trace.closed) return shared.book;
  }
  // A child whose root is not open in this process keeps its changes in its own book.
  const book = new CheckpointBook({
    ownerSessionId: input.sessionId,
    store: new BlobStore(input.scratchpadDir),
    records: () => readRecords(input.location, input.sessionId),
    append: (record: OmniMessage) => {
      if (!input.trace.closed) input.trace.append(record);
    },
  });
  for (const [id, entry] of books) if (entry.trace.closed) books.delete(id);
  if (input.rootSessionId === input.sessionId) books.set(input.sessionId, { book, trace: input.trace });
  return book;
}

/** The book of top-level session `sessionId`, when it is open in this process. */
export function checkpointBookOf(sessionId: string): CheckpointBook | undefined {
  return books.get(sessionId)?.book;
}

function readRecords(location: TraceLocation, sessionId: string): OmniMessage[] {
  try {
    return readSession(location, sessionId).records;
  } catch {
    // A new session's trace may not be on disk yet: nothing recorded, nothing to read back.
    return [];
  }
}
