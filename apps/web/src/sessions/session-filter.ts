import type { Session } from "../api/types.js";

/**
 * Whether a session matches the search box: every word of `query` appears (ignoring case) in its
 * title or its workspace path. An empty query matches every session.
 */
export function matchesSearch(session: Pick<Session, "title" | "workspace">, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = `${session.title}\n${session.workspace}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}
