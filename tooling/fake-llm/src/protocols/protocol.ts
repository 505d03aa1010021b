import type { SseFrame } from "../sse.js";
import type { TurnPlan } from "../turn-plan.js";

/** The wire protocols the fake server speaks. */
export type ModelProtocolName = "openai-chat" | "openai-responses" | "anthropic-messages";

/** What a protocol writer knows about the request it answers. */
export interface AnswerContext {
  /** The parsed request body. */
  body: Record<string, unknown>;
  /** The `model` of the request, echoed back like the real APIs do. */
  model: string;
  /** Unix seconds at which the answer was started. */
  createdAt: number;
}

/** One wire protocol: where it is served, how it streams, answers and fails. */
export interface ModelProtocol {
  name: ModelProtocolName;
  /** Request path, e.g. `/v1/chat/completions`. */
  path: string;
  wantsStream(body: Record<string, unknown>): boolean;
  /** Every frame of a streamed answer, in wire order. */
  streamFrames(plan: TurnPlan, context: AnswerContext): SseFrame[];
  /** The JSON body of a non-streamed answer. */
  completeBody(plan: TurnPlan, context: AnswerContext): unknown;
  errorBody(status: number, message: string): unknown;
}

/** `stream: true` in the body, as all three APIs spell it. */
export function bodyWantsStream(body: Record<string, unknown>): boolean {
  return body.stream === true;
}
