import { z } from "zod";

/**
 * One command-guardrail rule. `pattern` is a JavaScript regular expression tested against one
 * part of a shell command (core splits a command into pipeline and `;`/`&&`/`||` elements,
 * subshells and `sh -c` scripts, and tests each part); a match denies the call with `message`,
 * whatever the approval mode.
 */
export const GuardrailRuleSchema = z.strictObject({
  name: z.string().min(1),
  pattern: z.string().superRefine((source, ctx) => {
    try {
      new RegExp(source);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `invalid regular expression: ${(error as Error).message}` });
    }
  }),
  action: z.literal("deny").default("deny"),
  message: z.string().min(1),
});

export type GuardrailRule = z.output<typeof GuardrailRuleSchema>;

/**
 * The start of a command part up to the command word: leading variable assignments and wrappers
 * such as sudo or env, so `sudo rm …` is caught while `echo rm …` or `grep mkfs` is not.
 */
const COMMAND_START = String.raw`^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+|(?:sudo|doas|env|exec|nohup|nice|time|command)\s+(?:-\S+\s+)*)*`;
/** rm with a recursive flag (-r, -R, -rf, -fr, --recursive …) somewhere among its arguments. */
const RM_RECURSIVE = String.raw`rm\s+(?:\S+\s+)*?(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)\s+(?:\S+\s+)*?`;
/** `/`, `/*`, `~`, `~/`, `~/*`, `$HOME`, `${HOME}/*`, and top-level system folders such as `/usr`. */
const ROOTISH_TARGET = String.raw`(?:/|/\*|~/?\*?|"?\$\{?HOME\}?"?/?\*?|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var)/?\*?)(?=\s|$|;|&|\|)`;

/** Rules that apply when a project config does not list its own (`guardrail.rules` omitted). */
export const DEFAULT_GUARDRAIL_RULES: readonly GuardrailRule[] = [
  {
    name: "rm-rootish",
    pattern: COMMAND_START + RM_RECURSIVE + ROOTISH_TARGET,
    action: "deny",
    message: "Refusing to delete the root, the home folder or a system folder recursively.",
  },
  {
    name: "rm-no-preserve-root",
    pattern: `${COMMAND_START}rm\\s.*--no-preserve-root`,
    action: "deny",
    message: "Refusing rm --no-preserve-root.",
  },
  {
    name: "disk-write-dd",
    pattern: `${COMMAND_START}dd\\s.*\\bof=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)`,
    action: "deny",
    message: "Refusing to write a raw disk device with dd.",
  },
  {
    name: "disk-write-redirect",
    pattern: String.raw`>\s*/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d)`,
    action: "deny",
    message: "Refusing to redirect output onto a raw disk device.",
  },
  {
    name: "mkfs",
    pattern: `${COMMAND_START}mkfs(?:\\.[A-Za-z0-9]+)?(?:\\s|$)`,
    action: "deny",
    message: "Refusing to create a file system (mkfs).",
  },
  {
    name: "fork-bomb",
    // A shell function named ":" (the classic `:(){ :|:& };:`), tested on the part before the pipe.
    pattern: String.raw`(?:^|[\s;&|])(?:function\s+)?:\s*\(\)\s*\{`,
    action: "deny",
    message: "Refusing to run a fork bomb.",
  },
];

/** The first rule whose pattern matches `commandPart`, if any. */
export function matchGuardrail(
  rules: readonly GuardrailRule[],
  commandPart: string,
): GuardrailRule | undefined {
  return rules.find((rule) => new RegExp(rule.pattern).test(commandPart));
}
