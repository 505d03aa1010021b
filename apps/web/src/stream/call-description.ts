import { CALL_DESCRIPTION_KEYS, readStreamingArgument } from "@penguin/protocol/stream";

/**
 * The `description` (or `purpose`) argument of a tool call, read from its arguments JSON while it
 * streams in: what has arrived of its value, shown at once and growing with each fragment
 * ("the model is also asked to emit it first"). Undefined until the value has started.
 */
export function callDescription(argumentsJson: string): string | undefined {
  return readStreamingArgument(argumentsJson, CALL_DESCRIPTION_KEYS)?.value;
}
