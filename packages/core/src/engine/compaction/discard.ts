import type { ModelMessage } from "../types.js";

/**
 * `discard` mode's share of the threshold the kept context is brought under: half, so that the
 * next turns have room before the trigger fires again (just under the threshold would compact
 * again after one turn).
 */
export const DISCARD_TARGET_SHARE = 1 / 2;

export interface DiscardResult {
  kept: ModelMessage[];
  droppedTurns: number;
}

/**
 * The context's turns, oldest first: a run of assistant messages with the tool outputs that
 * answer its calls is one turn, and each user message is one too. Dropping whole turns never
 * leaves a tool call without its output, or an output without its call.
 */
export function splitTurns(messages: readonly ModelMessage[]): ModelMessage[][] {
  const turns: ModelMessage[][] = [];
  // The reply being collected, and whether its tool outputs have begun.
  let reply: ModelMessage[] | undefined;
  let outputsBegun = false;
  for (const message of messages) {
    const { payload } = message;
    if (payload.role === "assistant") {
      if (!reply || outputsBegun) {
        reply = [];
        turns.push(reply);
        outputsBegun = false;
      }
      reply.push(message);
    } else if (payload.type === "tool_call_output" && reply) {
      reply.push(message);
      outputsBegun = true;
    } else {
      turns.push([message]);
      reply = undefined;
    }
  }
  return turns;
}

/**
 * Drops the oldest turns until `size(kept)` is at most `target`, never a message in `keep` (the
 * current task's user messages), and never the last turn (the context must go on from somewhere).
 * Each turn is measured once and taken off the running total as it is dropped (an estimate counts
 * characters, so the parts add up to within a token each), rather than the kept context being
 * measured again after every drop.
 */
export function discardOldestTurns(
  messages: readonly ModelMessage[],
  keep: ReadonlySet<ModelMessage>,
  target: number,
  size: (messages: readonly ModelMessage[]) => number,
): DiscardResult {
  const turns = splitTurns(messages);
  const base = size([]);
  const dropped = new Set<number>();
  let total = size(messages);
  for (let index = 0; index < turns.length - 1; index++) {
    if (total <= target) break;
    const turn = turns[index] ?? [];
    if (turn.some((message) => keep.has(message))) continue;
    dropped.add(index);
    total -= size(turn) - base;
  }
  const kept = turns.filter((_, index) => !dropped.has(index)).flat();
  return { kept, droppedTurns: dropped.size };
}
