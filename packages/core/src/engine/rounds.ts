import type { ModelMessage } from "./types.js";

/**
 * Keeps a task going past the model's end of turn, and adds a block to every request (goal mode
 * is one). The engine asks it before each request what to add after the context, and after each
 * committed round whether the task goes on. What it adds to a request is never stored in the
 * context: it is rebuilt for every request, so it stays small and survives compaction.
 */
export interface RoundDriver {
  /**
   * Messages sent after the context in this request (and not kept in it). `attempt` is 1 for a
   * new round and higher for a retry of the same one.
   */
  requestTail(request: { attempt: number }): Promise<ModelMessage[]>;
  /**
   * A round committed: the model's reply and its calls' outputs are in the context. `idle`: the
   * model ended its turn (no tool call, no steering waiting), where a plain task would end.
   */
  afterRound(round: { idle: boolean }): Promise<RoundVerdict>;
}

/** Go on (with a message that starts the next round, added to the context), or end the task. */
export type RoundVerdict = { next: "continue"; message?: ModelMessage } | { next: "end" };
