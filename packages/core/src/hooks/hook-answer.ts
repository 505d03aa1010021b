// What a before-hook's stdout says. Penguin's own answer is `{"decision":"allow"|"deny",
// "reason":"…"}`; plain text (a log line) says nothing. A hook must never fail open because
// Penguin misread it, so:
// - stdout that is meant as JSON (it starts with `{`, or a line of it does) but does not parse
//   is "malformed" (a truncated `{"decision":"deny"` must not allow the call);
// - JSON that parses but is in no shape Penguin knows is "foreign", never read as "allow";
// - the answers of other harnesses' hooks are read where their meaning is unambiguous (listed in
//   FOREIGN_FIELDS), so a hook written for one of them does not silently allow everything.

import { errorMessage } from "@penguin/protocol";
export type HookDecision = "allow" | "deny";

export type HookAnswer =
  /** Empty or plain-text stdout: the exit code decides. */
  | { kind: "none" }
  | { kind: "verdict"; decision: HookDecision; reason?: string }
  /** Meant as JSON, but it does not parse. */
  | { kind: "malformed"; error: string }
  /** Valid JSON in a shape Penguin does not read as a decision; `why` says what is wrong. */
  | { kind: "foreign"; why: string };

/** Penguin's shape, shown whenever a hook's answer is refused so its author can fix it. */
export const PENGUIN_HOOK_ANSWER_SHAPE = '{"decision":"allow"|"deny","reason":"…"} (or exit 2 to deny)';

/** How much of a refused answer a message quotes. */
const QUOTED_ANSWER_MAX_CHARS = 200;

/** One field of an answer that decides, and what its values mean. */
interface DecisionField {
  /** The path of the field in the answer. */
  path: readonly string[];
  /** Its values that mean allow or deny; any other value is ambiguous and refuses the answer. */
  values: Readonly<Record<string, HookDecision>>;
  /** Where the reason is, in order of preference (paths in the answer). */
  reasons: readonly (readonly string[])[];
}

/** Penguin's own answer. */
const PENGUIN_FIELD: DecisionField = {
  path: ["decision"],
  values: { allow: "allow", deny: "deny" },
  reasons: [["reason"]],
};

/**
 * Other harnesses' answers whose meaning is unambiguous. "ask" (defer to a human) is left out:
 * Penguin's before-hooks run under every approval mode, allow-all included, so reading "ask" as
 * allow could run a call the hook wanted a person to see.
 */
const FOREIGN_FIELDS: readonly DecisionField[] = [
  // `{"decision":"block"|"approve","reason":…}` (older Claude Code, Gemini CLI).
  { path: ["decision"], values: { block: "deny", approve: "allow" }, reasons: [["reason"]] },
  // `{"hookSpecificOutput":{"permissionDecision":"deny"|"allow","permissionDecisionReason":…}}` (Claude Code).
  {
    path: ["hookSpecificOutput", "permissionDecision"],
    values: { deny: "deny", allow: "allow" },
    reasons: [["hookSpecificOutput", "permissionDecisionReason"], ["reason"]],
  },
  // `{"permission":"deny"|"allow","agentMessage":…,"userMessage":…}` (Cursor).
  {
    path: ["permission"],
    values: { deny: "deny", allow: "allow" },
    reasons: [["agentMessage"], ["userMessage"], ["reason"]],
  },
];

/** `{"continue": false, "stopReason": …}`: the hook wants nothing more to run, so not this call. */
const STOP_FIELD = { path: ["continue"], reasons: [["stopReason"], ["reason"]] } as const;

export function readHookAnswer(stdout: string): HookAnswer {
  const text = stdout.trim();
  if (text === "") return { kind: "none" };
  const meantAsJson = /^\s*\{/m.test(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!meantAsJson) return { kind: "none" };
    const why = errorMessage(error);
    return { kind: "malformed", error: `${why}; stdout was ${quote(text)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    // A bare number or word (`0`, `true`, `"ok"`) parses as JSON too; only a structured answer
    // that is not an object is refused.
    if (!meantAsJson && !text.startsWith("[")) return { kind: "none" };
    return { kind: "foreign", why: `the answer ${quote(text)} is not a JSON object` };
  }
  return readObject(value as Record<string, unknown>, text);
}

function readObject(answer: Record<string, unknown>, text: string): HookAnswer {
  const decisions: { decision: HookDecision; reason?: string }[] = [];
  const unclear: string[] = [];
  for (const field of [PENGUIN_FIELD, ...FOREIGN_FIELDS]) {
    const found = at(answer, field.path);
    if (found === undefined) continue;
    const decision = typeof found === "string" ? field.values[found] : undefined;
    if (decision) {
      decisions.push({ decision, ...reasonAt(answer, field.reasons) });
    } else if (!isValueOfAnotherField(field, found)) {
      unclear.push(`${field.path.join(".")}: ${JSON.stringify(found)}`);
    }
  }
  if (at(answer, STOP_FIELD.path) === false)
    decisions.push({ decision: "deny", ...reasonAt(answer, STOP_FIELD.reasons) });

  // Any field that denies wins: a hook that said "deny" anywhere is not overruled by another field.
  const deny = decisions.find((d) => d.decision === "deny");
  if (deny) return { kind: "verdict", ...deny };
  if (unclear.length > 0) {
    return {
      kind: "foreign",
      why: `${unclear.join(", ")} is not a decision Penguin can act on, in ${quote(text)}`,
    };
  }
  const allow = decisions[0];
  if (allow) return { kind: "verdict", ...allow };
  return { kind: "foreign", why: `${quote(text)} has no decision Penguin knows` };
}

/** `decision: "block"` is not unclear for Penguin's own field: another field of the same path reads it. */
function isValueOfAnotherField(field: DecisionField, value: unknown): boolean {
  if (typeof value !== "string") return false;
  return [PENGUIN_FIELD, ...FOREIGN_FIELDS].some(
    (other) => other !== field && other.path.join(".") === field.path.join(".") && value in other.values,
  );
}

function at(value: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

function reasonAt(
  answer: Record<string, unknown>,
  paths: readonly (readonly string[])[],
): { reason?: string } {
  for (const path of paths) {
    const found = at(answer, path);
    if (typeof found === "string" && found.trim() !== "") return { reason: found.trim() };
  }
  return {};
}

function quote(text: string): string {
  const shown = text.length > QUOTED_ANSWER_MAX_CHARS ? `${text.slice(0, QUOTED_ANSWER_MAX_CHARS)}…` : text;
  return JSON.stringify(shown);
}
