import { THINKING_LEVELS } from "@penguin/state";
import type { ThinkingLevel } from "../models/types.js";

/**
 * A thinking level given in code, checked: a JavaScript caller (or a typo in a server request)
 * would otherwise reach the adapters, which map only the five known levels.
 */
export function checkThinkingLevel(
  level: ThinkingLevel | undefined,
  where: string,
): ThinkingLevel | undefined {
  if (level === undefined || (THINKING_LEVELS as readonly string[]).includes(level)) return level;
  throw new TypeError(
    `${where}: thinking level ${JSON.stringify(level)} is not one of ${THINKING_LEVELS.join(", ")}`,
  );
}
