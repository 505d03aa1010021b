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
}

/**
 * Turns one session's records, fed in order, into observations as each completes: a tool call at
 * its output, a request at its final end, a turn when the next begins or the task ends. The
 * server feeds it live (its Prometheus counters); `observationsOf` feeds it a whole trace.
 */
export class ObservationRecorder {
  private model = "unknown";
  private task = 0;
  private turn = 0;
  private request: OpenRequest | undefined;
  private lastModel: Observation | undefined;
  private turnStart: number | undefined;
  private turnFailed = false;
  private readonly callStarts = new Map<string, { name: string; startMs: number }>();

  /** The observations `record` completes (none for most records). */
  push(record: OmniMessage): Observation[] {
    // A child's relayed records (with an origin) are the child's: its own trace measures them.
    if (record.origin !== undefined && record.origin.length > 0) return [];
    const atMs = Date.parse(record.timestamp);
    if (Number.isNaN(atMs)) return [];
    if (record.type === "session_meta") {
      this.model = `${record.payload.provider}/${record.payload.model_id}`;
      return [];
    }
    const done: Observation[] = [];
    const payload = record.payload;
    switch (payload.type) {
      case "text":
        // A user prompt starts a task; its turns are numbered from 1.
        if (payload.role === "user" && record.type === "model_msg") {
          this.endTurn(atMs, done);
          this.task += 1;
          this.turn = 0;
        }
        break;
      case "request_begin":
        // Retries are attempts of the same request: the first begin starts it.
        if (this.request === undefined) {
          this.endTurn(atMs, done);
          this.turn += 1;
          this.turnStart = atMs;
          this.request = { startMs: atMs };
        }
        break;
      case "request_end": {
        // An attempt that will be retried is not the end of the request.
        if (this.request === undefined || payload.retry_in_ms !== undefined) break;
        const failed = payload.status !== "completed";
        this.lastModel = {
          kind: "model",
          name: this.model,
          durationMs: atMs - this.request.startMs,
          error: failed,
        };
        done.push(this.lastModel);
        if (failed) this.turnFailed = true;
        this.request = undefined;
        break;
      }
      case "token_usage":
        // Usage follows its request's end: the observation already handed out gets it.
        if (this.lastModel) {
          this.lastModel.tokens = payload.request.total;
          if (payload.request_cost_usd !== undefined) this.lastModel.costUsd = payload.request_cost_usd;
          this.lastModel = undefined;
        }
        break;
      case "tool_call":
        this.callStarts.set(payload.tool_call_id, { name: payload.name, startMs: atMs });
        break;
      case "approval_decision": {
        // The call is dispatched once it is approved: the wait for a human is not the tool's time.
        const call = this.callStarts.get(payload.tool_call_id);
        if (call) call.startMs = atMs;
        break;
      }
      case "tool_call_output": {
        const call = this.callStarts.get(payload.tool_call_id);
        if (!call) break;
        this.callStarts.delete(payload.tool_call_id);
        const failed = payload.stop_reason !== undefined && payload.stop_reason !== "completed";
        done.push({
          kind: "tool",
          name: call.name,
          durationMs: Math.max(0, atMs - call.startMs),
          error: failed,
        });
        break;
      }
      case "hook_result":
        done.push({
          kind: "hook",
          name: payload.hook,
          durationMs: payload.duration_ms ?? 0,
          error: payload.outcome !== "exited" || payload.decision === "deny",
        });
        break;
      case "task_end":
        this.endTurn(atMs, done);
        this.request = undefined;
        break;
      default:
        break;
    }
    return done;
  }

  private endTurn(atMs: number, done: Observation[]): void {
    if (this.turnStart === undefined) return;
    done.push({
      kind: "turn",
      name: `task ${this.task} turn ${this.turn}`,
      durationMs: Math.max(0, atMs - this.turnStart),
      error: this.turnFailed,
    });
    this.turnStart = undefined;
    this.turnFailed = false;
  }
}

/** The observations of one session's own records. */
export function observationsOf(records: readonly OmniMessage[]): Observation[] {
  const recorder = new ObservationRecorder();
  return records.flatMap((record) => recorder.push(record));
}
