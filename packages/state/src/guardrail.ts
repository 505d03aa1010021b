import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";

/** The schema of a guardrail rule, built on the first call (configuration is checked only when read). */
export const guardrailSchemas = onFirstUse(() => {
  /**
   * One command-guardrail rule. `pattern` is a JavaScript regular expression tested against one
   * part of a shell command (core splits a command into pipeline and `;`/`&&`/`||` elements,
   * subshells and `sh -c` scripts, and tests each part); a match denies the call with `message`,
   * whatever the approval mode.
   */
  const GuardrailRuleSchema = z.strictObject({
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
  return { GuardrailRuleSchema };
});
type Schemas = ReturnType<typeof guardrailSchemas>;

export type GuardrailRule = z.output<Schemas["GuardrailRuleSchema"]>;

/**
 * Commands that run the rest of their words as a command, with the short options of each that
 * take an argument (`sudo -u root`, `nice -n 5`, `env -C dir`, `timeout -s KILL`).
 */
const WRAPPER_ARG_LETTERS: Readonly<Record<string, string>> = {
  sudo: "CDghprTtUu",
  doas: "Cu",
  env: "CSu",
  nice: "n",
  ionice: "cnp",
  time: "fo",
  exec: "a",
  timeout: "ks",
  stdbuf: "eio",
  nohup: "",
  command: "",
  setsid: "",
};
/** Long options of those wrappers that take their argument as the next word (`sudo --user root`). */
const ARG_LONG =
  "user|group|chdir|host|prompt|role|type|other-user|unset|split-string|adjustment|signal|kill-after";

/**
 * One option of a wrapper whose option letters `argLetters` take an argument, read one way only (a
 * pattern that could read `-u sudo` both as an option with its argument and as a flag followed by
 * a wrapper would let a crafted command make it backtrack for ages): a cluster of flags that may
 * end in an option letter with its argument (`-E`, `-u root`, `-uroot`, `-iu root`), a long
 * option with its argument (`--user root`, `--user=root`), another long option, `--`, or
 * timeout's duration (`10`, `2.5s`).
 */
function wrapperOption(argLetters: string): string {
  const cluster = argLetters
    ? String.raw`-[^\s\-${argLetters}]*(?:[${argLetters}](?:\S+|\s+[^-\s]\S*))?`
    : String.raw`-[^\s\-]*`;
  return String.raw`(?:${cluster}|--(?:${ARG_LONG})\s+[^-\s]\S*|--(?!(?:${ARG_LONG})(?:\s|$))\S+|--(?=\s)|\d+(?:\.\d+)?[smhd]?)`;
}

/** A wrapper, named bare or by its path (`/usr/bin/sudo`), with its options. */
const WRAPPER = `(?:\\S*/)?(?:${Object.entries(WRAPPER_ARG_LETTERS)
  .map(([name, letters]) => String.raw`${name}(?:\s+${wrapperOption(letters)})*`)
  .join("|")})`;
/**
 * The start of a command part up to the command word: leading variable assignments, wrappers such
 * as sudo or env with their options, and the command word's folder, so `sudo -u root rm …` and
 * `/bin/rm …` are caught while `echo rm …` or `grep mkfs` is not.
 */
const COMMAND_START = String.raw`^\s*(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|${WRAPPER})\s+)*(?:\S*/)?`;
/** rm with a recursive flag (-r, -R, -rf, -fr, --recursive …) somewhere among its arguments. */
const RM_RECURSIVE = String.raw`rm\s+(?:\S+\s+)*?(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)\s+(?:\S+\s+)*?`;
/** `/`, `/*`, `~`, `~/`, `~/*`, `$HOME`, `${HOME}/*`, and top-level system folders such as `/usr`. */
const ROOTISH_TARGET = String.raw`(?:/|/\*|~/?\*?|"?\$\{?HOME\}?"?/?\*?|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var)/?\*?)(?=\s|$|;|&|\|)`;

/**
 * The default rules, each with the words its pattern cannot match without (the pattern needs one
 * of them, as written, in the text). A command part with none of a rule's words skips its pattern:
 * the default patterns are long regular expressions, and compiling them on a session's first
 * command took some 26 ms of its first round (docs/benchmarks.md section 11), for `echo` as for `rm`.
 */
const DEFAULT_RULES: readonly { rule: GuardrailRule; needs: readonly string[] }[] = [
  {
    rule: {
      name: "rm-rootish",
      pattern: COMMAND_START + RM_RECURSIVE + ROOTISH_TARGET,
      action: "deny",
      message: "Refusing to delete the root, the home folder or a system folder recursively.",
    },
    needs: ["rm"],
  },
  {
    rule: {
      name: "rm-no-preserve-root",
      pattern: `${COMMAND_START}rm\\s.*--no-preserve-root`,
      action: "deny",
      message: "Refusing rm --no-preserve-root.",
    },
    needs: ["--no-preserve-root"],
  },
  {
    rule: {
      name: "disk-write-dd",
      pattern: `${COMMAND_START}dd\\s.*\\bof=/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)`,
      action: "deny",
      message: "Refusing to write a raw disk device with dd.",
    },
    needs: ["of=/dev/"],
  },
  {
    rule: {
      name: "disk-write-redirect",
      pattern: String.raw`>\s*/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d)`,
      action: "deny",
      message: "Refusing to redirect output onto a raw disk device.",
    },
    needs: ["/dev/"],
  },
  {
    rule: {
      name: "mkfs",
      pattern: `${COMMAND_START}mkfs(?:\\.[A-Za-z0-9]+)?(?:\\s|$)`,
      action: "deny",
      message: "Refusing to create a file system (mkfs).",
    },
    needs: ["mkfs"],
  },
  {
    rule: {
      name: "fork-bomb",
      // A shell function named ":" (the classic `:(){ :|:& };:`), tested on the part before the pipe.
      pattern: String.raw`(?:^|[\s;&|])(?:function\s+)?:\s*\(\)\s*\{`,
      action: "deny",
      message: "Refusing to run a fork bomb.",
    },
    needs: ["()"],
  },
];

/** Rules that apply when a project config does not list its own (`guardrail.rules` omitted). */
export const DEFAULT_GUARDRAIL_RULES: readonly GuardrailRule[] = DEFAULT_RULES.map(({ rule }) => rule);

/** Keyed by the pattern, not the name: a project's rule of the same name with its own pattern is always tried. */
const WORDS_OF_PATTERN = new Map(DEFAULT_RULES.map(({ rule, needs }) => [rule.pattern, needs]));

const COMMAND_START_PATTERN = new RegExp(COMMAND_START);

/**
 * A command part without what comes before its command word: variable assignments, wrappers with
 * their options, and the command word's folder (`sudo -u root /usr/bin/git push` is `git push`),
 * so a project's own rule written for the bare command (`^git push`) sees through them as the
 * default rules do.
 */
export function commandWithoutWrappers(commandPart: string): string {
  return commandPart.replace(COMMAND_START_PATTERN, "");
}

/**
 * Whether `rule` could match `text`: false only for a default rule none of whose words is in the
 * text. Removing wrappers (`commandWithoutWrappers`) leaves the end of a text, so a rule that
 * cannot match a text cannot match what remains of it either.
 */
export function mightMatchGuardrail(rule: GuardrailRule, text: string): boolean {
  const words = WORDS_OF_PATTERN.get(rule.pattern);
  return words === undefined || words.some((word) => text.includes(word));
}

/** Each pattern compiled once (no flags: `test` keeps no state between calls). */
const compiledPatterns = new Map<string, RegExp>();

function compiled(pattern: string): RegExp {
  let regExp = compiledPatterns.get(pattern);
  if (regExp === undefined) {
    regExp = new RegExp(pattern);
    compiledPatterns.set(pattern, regExp);
  }
  return regExp;
}

/** The first rule whose pattern matches `commandPart`, if any. */
export function matchGuardrail(
  rules: readonly GuardrailRule[],
  commandPart: string,
): GuardrailRule | undefined {
  return rules.find(
    (rule) => mightMatchGuardrail(rule, commandPart) && compiled(rule.pattern).test(commandPart),
  );
}
