import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import {
  commandWithoutWrappers,
  DEFAULT_GUARDRAIL_RULES,
  type GuardrailRule,
  matchGuardrail,
  mightMatchGuardrail,
} from "@penguin/state";
import { splitShellCommand } from "./shell-split.js";
import { normalizedText } from "./shell-words.js";

/**
 * The tools whose argument is shell text, and which argument holds it. "A command guardrail
 * that runs before every mode … over the command text of `exec_command` and `input_command`" —
 * and of the extended toolset's `run_command`, which runs shell text just the same.
 */
export const COMMAND_TEXT_ARGUMENT: Readonly<Record<string, string>> = {
  exec_command: "cmd",
  input_command: "chars",
  run_command: "command",
};

/** A guardrail rule that matched one part of a call's command. */
export interface GuardrailHit {
  rule: GuardrailRule;
  /** The part of the command that matched, as written. */
  part: string;
}

/** The shell text a tool call would run, or undefined for a call that runs none. */
export function commandTextOf(call: OmniMessage<ToolCallPayload>): string | undefined {
  const key = COMMAND_TEXT_ARGUMENT[call.payload.name];
  if (key === undefined) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(call.payload.arguments);
  } catch {
    // Malformed arguments never run: the Environment answers them with a failed output.
    return undefined;
  }
  const value = (args as Record<string, unknown> | null)?.[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * Checks every part of a command on its own: each element of a pipeline, `&&`, `||` and `;` chain,
 * every subshell and command substitution, and the script of `sh -c` / `bash -c` / `eval`.
 * A part matches when a rule matches its text as written or with needless quotes removed
 * (`rm -rf "/"` is `rm -rf /`; `echo "rm -rf /"` stays an echo), either of them also without the
 * wrappers before the command word (`sudo -u root git push` for a rule written as `^git push`).
 */
export function checkCommand(rules: readonly GuardrailRule[], command: string): GuardrailHit | undefined {
  const { parts } = splitShellCommand(command);
  for (const part of parts) {
    const written = [part.raw, normalizedText(part)];
    // Most parts (`echo`, `ls`, `npm test`) hold none of the default rules' words: nothing to try.
    const candidates = rules.filter((rule) => written.some((text) => mightMatchGuardrail(rule, text)));
    if (candidates.length === 0) continue;
    const texts = new Set([...written, ...written.map(commandWithoutWrappers)]);
    for (const text of texts) {
      const rule = matchGuardrail(candidates, text);
      if (rule) return { rule, part: part.raw };
    }
  }
  return undefined;
}

/** The guardrail for one tool call; calls without shell text pass. */
export function checkToolCall(
  rules: readonly GuardrailRule[],
  call: OmniMessage<ToolCallPayload>,
): GuardrailHit | undefined {
  const command = commandTextOf(call);
  return command === undefined ? undefined : checkCommand(rules, command);
}

export { DEFAULT_GUARDRAIL_RULES, type GuardrailRule };
