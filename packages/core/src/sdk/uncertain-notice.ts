import { type OmniMessage, userText } from "@penguin/protocol";
import { RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME } from "@penguin/state";
import { type JournalAccess, uncertainSteps } from "../tools/journal/index.js";

// The one notice a resumed session's model gets about uncertain calls: each call's tool, short
// arguments and what Penguin found when it checked the files, then what to do. Never the journal
// itself: a few lines, whatever the number of calls.

export const UNCERTAIN_NOTICE_TAG = "uncertain_steps";
/** Calls named one by one; the rest are counted. */
const LISTED_CALLS = 5;
/** Characters of a call's arguments shown. */
const ARGUMENT_CHARS = 80;

/** The notice for a session's uncertain calls, or undefined when it has none. */
export async function uncertainNotice(
  access: JournalAccess,
  resolveToolOffered: boolean,
): Promise<OmniMessage | undefined> {
  const steps = await uncertainSteps(access);
  if (typeof steps === "string" || steps.length === 0) return undefined;
  const lines = [
    `[${UNCERTAIN_NOTICE_TAG}] The session stopped while ${steps.length === 1 ? "this call was" : "these calls were"} changing things; each may or may not have had its effect:`,
    ...steps
      .slice(0, LISTED_CALLS)
      .map(
        ({ entry, check }) =>
          `- ${entry.name} (${entry.toolCallId}) ${shortArguments(entry.arguments)}: ${check.summary}`,
      ),
  ];
  if (steps.length > LISTED_CALLS) lines.push(`- and ${steps.length - LISTED_CALLS} more`);
  lines.push(
    resolveToolOffered
      ? "Check the workspace, then record a decision on each with resolve_execution_activity (accept: it happened; retry: it did not, and you run it again)."
      : "Check the workspace before you go on: assume neither that they happened nor that they did not.",
  );
  return userText(lines.join("\n"), { sender: "harness" });
}

function shortArguments(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length <= ARGUMENT_CHARS ? flat : `${flat.slice(0, ARGUMENT_CHARS - 1)}…`;
}

/** Queues the notice for the next request of a resumed session whose trace has uncertain calls. */
export async function queueUncertainNotice(
  state: { pendingNotes: OmniMessage[] },
  access: JournalAccess,
  tools: readonly { name: string }[],
): Promise<void> {
  const offered = tools.some((tool) => tool.name === RESOLVE_EXECUTION_ACTIVITY_TOOL_NAME);
  const notice = await uncertainNotice(access, offered);
  if (notice) state.pendingNotes.push(notice);
}
