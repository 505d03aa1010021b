import { resolve } from "node:path";
import { parseModelRef } from "@penguin/state";
import { UsageError } from "./exit-codes.js";

export const MODEL_ENV = "PENGUIN_MODEL";

/**
 * The model the user asked for: `--model`, else `$PENGUIN_MODEL`, else undefined (the SDK then
 * takes the project's default model). A replay cassette path is made absolute here, because
 * the session's workspace may be another folder than the one the user typed the path in.
 */
export function resolveModelRef(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const ref = flag ?? (env[MODEL_ENV] || undefined);
  if (ref === undefined) return undefined;
  const parsed = parseModelRef(ref);
  if (!parsed) {
    throw new UsageError(
      `invalid model "${ref}": use provider/model-id (e.g. openai/gpt-5, anthropic/claude-sonnet-4-5) or replay:FILE`,
    );
  }
  if (parsed.provider === "replay") return `replay:${resolve(parsed.modelId)}`;
  return ref;
}
