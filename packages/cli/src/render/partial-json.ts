import { readStreamingArgument } from "@penguin/protocol";

/**
 * Reads one top-level string property out of a tool call's arguments JSON that is still
 * streaming in, only once its closing quote has arrived, so the terminal never shows half a
 * sentence on its one status line.
 */
export function completedTopLevelString(partialJson: string, key: string): string | undefined {
  const read = readStreamingArgument(partialJson, [key]);
  return read?.complete ? read.value : undefined;
}
