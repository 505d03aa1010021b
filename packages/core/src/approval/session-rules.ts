import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { commandTextOf } from "./guardrail.js";
import { splitShellCommand } from "./shell-split.js";
import type { CommandPart } from "./shell-words.js";

/**
 * What a human may allow for the rest of a session when approving a call: every call of a tool,
 * or every command that starts with a prefix ("allow that tool, or that command prefix").
 */
export type SessionRule = { tool: string } | { commandPrefix: string };

/** Redirection targets that write nothing a user would care about. */
const HARMLESS_TARGET = /^(?:\/dev\/null|&?\d+|-)$/;

/**
 * The rules a human granted in one session. A rule never widens: a compound command is allowed
 * only when every one of its parts (pipeline elements, chained commands, substitutions, `sh -c`
 * scripts) matches a rule on its own, and a part that writes a file by redirection never matches
 * a prefix rule.
 */
export class SessionRules {
  private readonly tools = new Set<string>();
  private readonly prefixes: { text: string; words: string[] }[] = [];

  /** Adds a rule; returns false when the rule is not usable (an empty or compound prefix). */
  add(rule: SessionRule): boolean {
    if ("tool" in rule) {
      if (!rule.tool) return false;
      this.tools.add(rule.tool);
      return true;
    }
    const { parts, complete } = splitShellCommand(rule.commandPrefix);
    const [only] = parts;
    if (!complete || parts.length !== 1 || only.redirects.length > 0 || only.words.length === 0) return false;
    const words = only.words.map((w) => w.value);
    if (!this.prefixes.some((p) => sameWords(p.words, words))) {
      this.prefixes.push({ text: words.join(" "), words });
    }
    return true;
  }

  list(): SessionRule[] {
    return [
      ...[...this.tools].map((tool) => ({ tool })),
      ...this.prefixes.map((p) => ({ commandPrefix: p.text })),
    ];
  }

  /** A description of the rules that allow `call`, or undefined when they do not all agree. */
  match(call: OmniMessage<ToolCallPayload>): string | undefined {
    const tool = call.payload.name;
    if (this.tools.has(tool)) return `tool ${tool}`;
    if (tool !== "exec_command" || this.prefixes.length === 0) return undefined;
    const command = commandTextOf(call);
    if (command === undefined) return undefined;
    const { parts, complete } = splitShellCommand(command);
    if (!complete || parts.length === 0) return undefined;
    const used = new Set<string>();
    for (const part of parts) {
      const prefix = this.prefixes.find((p) => partMatches(part, p.words));
      if (!prefix) return undefined;
      used.add(prefix.text);
    }
    return `command prefix ${[...used].map((p) => JSON.stringify(p)).join(", ")}`;
  }
}

function partMatches(part: CommandPart, prefix: string[]): boolean {
  if (part.redirects.some((r) => r.op.includes(">") && !HARMLESS_TARGET.test(r.target))) return false;
  if (part.words.length < prefix.length) return false;
  return prefix.every((word, index) => part.words[index].value === word);
}

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** A word that reads like a subcommand (`git status`, `npm test`), kept in the suggested prefix. */
const SUBCOMMAND = /^[a-z][a-z0-9._:-]*$/i;

/**
 * The command prefix offered for "always for this session": the program and, when the next word
 * looks like a subcommand, that word too. Undefined for a compound or unparsable command, which
 * a single prefix rule could never cover.
 */
export function suggestedPrefix(command: string): string | undefined {
  const { parts, complete } = splitShellCommand(command);
  if (!complete || parts.length !== 1 || parts[0].redirects.length > 0) return undefined;
  const words = parts[0].words.map((w) => w.value);
  if (words.length === 0) return undefined;
  return words.length > 1 && SUBCOMMAND.test(words[1]) ? `${words[0]} ${words[1]}` : words[0];
}

/**
 * The prefix a front end offers to allow for `call`: prefix rules match `exec_command` only, and a
 * compound command has none (see `suggestedPrefix`).
 */
export function suggestedPrefixOf(call: OmniMessage<ToolCallPayload>): string | undefined {
  const command = call.payload.name === "exec_command" ? commandTextOf(call) : undefined;
  return command === undefined ? undefined : suggestedPrefix(command);
}

/**
 * Whether granting `rule` would allow `call` itself. A front end grants a rule on the call a
 * person is looking at, so a rule that does not cover that call (a prefix of another command) is
 * refused rather than stored.
 */
export function ruleCoversCall(rule: SessionRule, call: OmniMessage<ToolCallPayload>): boolean {
  const rules = new SessionRules();
  return rules.add(rule) && rules.match(call) !== undefined;
}
