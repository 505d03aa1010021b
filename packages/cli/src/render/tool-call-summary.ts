import { showControls } from "./terminal-text.js";

/**
 * The arguments that hold a call's one-sentence description: `description`, or the `purpose`
 * of the extended toolset's run_command (recorded with its job, and shown the same way).
 */
export const CALL_DESCRIPTION_ARGUMENTS = ["description", "purpose"] as const;

/** A call's arguments as the model wrote them: not JSON, or JSON with an object (absent for any other value). */
export type CallArguments =
  | { valid: false; object?: undefined }
  | { valid: true; object?: Record<string, unknown> };

export function readCallArguments(argumentsJson: string): CallArguments {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      return { valid: true, object: parsed as Record<string, unknown> };
    }
    return { valid: true };
  } catch {
    return { valid: false };
  }
}

/**
 * The one-line form of a tool call at the terminal: its model-written `description` (or
 * `purpose`) when the tool takes one, else the argument that says what it touches (a file path,
 * a source).
 */
export function summarizeToolCall(name: string, argumentsJson: string): { title: string; detail?: string } {
  const { title, detail } = summaryOf(name, argumentsJson);
  // The model wrote these: a control character in them is shown, never acted on by the terminal.
  return detail === undefined
    ? { title: showControls(title) }
    : { title: showControls(title), detail: showControls(detail) };
}

function summaryOf(name: string, argumentsJson: string): { title: string; detail?: string } {
  const read = readCallArguments(argumentsJson);
  if (!read.valid) return { title: name, detail: "(arguments are not valid JSON)" };
  const args = read.object ?? {};
  const str = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const description = str("description") ?? str("purpose");
  const command = str("cmd") ?? str("command") ?? str("chars");
  const target =
    str("file_path") ?? str("source") ?? str("process_id") ?? str("job_id") ?? str("subagent_id");
  if (description) return { title: `${name}: ${description}`, detail: command ?? target };
  if (command !== undefined) return { title: `${name}: ${command}` };
  if (target) return { title: `${name} ${target}` };
  return { title: name };
}

/** Keeps the first and last lines of a long output; says how many lines were folded away. */
export function collapseOutput(output: string, keepHead = 6, keepTail = 6): { text: string; folded: number } {
  const lines = output.replace(/\n$/, "").split("\n");
  if (lines.length <= keepHead + keepTail + 2) return { text: lines.join("\n"), folded: 0 };
  const folded = lines.length - keepHead - keepTail;
  return {
    text: [...lines.slice(0, keepHead), `… ${folded} more lines …`, ...lines.slice(-keepTail)].join("\n"),
    folded,
  };
}
