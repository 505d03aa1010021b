import { createInterface } from "node:readline/promises";

/**
 * How a destructive command may go ahead: `--yes` skips the question; on a terminal the user is
 * asked; with no terminal on stdin nobody can answer, which the caller turns into a refusal
 * (delete) or a dry run (tools sync).
 */
export type Consent = "given" | "refused" | "no-terminal";

export async function askConsent(question: string, yes: boolean | undefined): Promise<Consent> {
  if (yes) return "given";
  if (!process.stdin.isTTY) return "no-terminal";
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    return answer === "y" || answer === "yes" ? "given" : "refused";
  } finally {
    rl.close();
  }
}
