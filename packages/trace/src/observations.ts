import type { OmniMessage } from "@penguin/protocol";

// What one trace tells about timing: every tool call, model request, model turn and hook run,
// each an observation with its duration and whether it failed. Metrics are derived from the
// trace the session already writes (one durable record per step), so nothing extra is stored
// and a crashed session's metrics are as complete as its trace.

export const OBSERVATION_KINDS = ["tool", "model", "turn", "hook"] as const;
export type ObservationKind = (typeof OBSERVATION_KINDS)[number];

export interface Observation {
  kind: ObservationKind;
  /** Tool name, `provider/model`, hook name, or `task N turn M` for a turn. */
  name: string;
  durationMs: number;
  error: boolean;
  /** Model requests: the request's total tokens (input, cached or not, and output). */
  tokens?: number;
  costUsd?: number;
}

interface OpenRequest {
  startMs: number;
  turn: number;
}

/** The observations of one session's own records (a child's relayed records, with an origin, are the child's). */
export function observationsOf(records: readonly OmniMessage[]): Observation[] {
  const observations: Observation[] = [];
  let model = "unknown";
  let task = 0;
  let turn = 0;
  let request: OpenRequest | undefined;
  let lastModel: Observation | undefined;
  let turnStart: number | undefined;
  let turnFailed = false;
  const callStarts = new Map<string, { name: string; startMs: number }>();

  const endTurn = (atMs: number) => {
    if (turnStart === undefined) return;
    observations.push({
      kind: "turn",
      name: `task ${task} turn ${turn}`,
      durationMs: Math.max(0, atMs - turnStart),
      error: turnFailed,
    });
    turnStart = undefined;
    turnFailed = false;
  };

  for (const record of records) {
    if (record.origin !== undefined && record.origin.length > 0) continue;
    const atMs = Date.parse(record.timestamp);
    if (Number.isNaN(atMs)) continue;
    if (record.type === "session_meta") {
      model = `${record.payload.provider}/${record.payload.model_id}`;
      continue;
    }
    const payload = record.payload;
    switch (payload.type) {
      case "text":
        // A user prompt starts a task; its turns are numbered from 1.
        if (payload.role === "user" && record.type === "model_msg") {
          endTurn(atMs);
          task += 1;
          turn = 0;
        }
        break;
      case "request_begin":
        // Retries are attempts of the same request: the first begin starts it.
        if (request === undefined) {
          endTurn(atMs);
          turn += 1;
          turnStart = atMs;
          request = { startMs: atMs, turn };
        }
        break;
      case "request_end": {
        // An attempt that will be retried is not the end of the request.
        if (request === undefined || payload.retry_in_ms !== undefined) break;
        const failed = payload.status !== "completed";
        lastModel = { kind: "model", name: model, durationMs: atMs - request.startMs, error: failed };
        observations.push(lastModel);
        if (failed) turnFailed = true;
        request = undefined;
        break;
      }
      case "token_usage":
        if (lastModel) {
          lastModel.tokens = payload.request.total;
          if (payload.request_cost_usd !== undefined) lastModel.costUsd = payload.request_cost_usd;
          lastModel = undefined;
        }
        break;
      case "tool_call":
        callStarts.set(payload.tool_call_id, { name: payload.name, startMs: atMs });
        break;
      case "approval_decision": {
        // The call is dispatched once it is approved: the wait for a human is not the tool's time.
        const call = callStarts.get(payload.tool_call_id);
        if (call) call.startMs = atMs;
        break;
      }
      case "tool_call_output": {
        const call = callStarts.get(payload.tool_call_id);
        if (!call) break;
        callStarts.delete(payload.tool_call_id);
        const failed = payload.stop_reason !== undefined && payload.stop_reason !== "completed";
        observations.push({
          kind: "tool",
          name: call.name,
          durationMs: Math.max(0, atMs - call.startMs),
          error: failed,
        });
        break;
      }
      case "hook_result":
        observations.push({
          kind: "hook",
          name: payload.hook,
          durationMs: payload.duration_ms ?? 0,
          error: payload.outcome !== "exited" || payload.decision === "deny",
        });
        break;
      case "task_end":
        endTurn(atMs);
        request = undefined;
        break;
      default:
        break;
    }
  }
  return observations;
}
