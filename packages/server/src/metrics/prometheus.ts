import type { OmniMessage } from "@penguin/protocol";
import { type Observation, ObservationRecorder } from "@penguin/trace";
import { Counter, Histogram, Registry } from "prom-client";

// The server's Prometheus metrics: what its sessions do, counted as it streams. "A fixed label
// vocabulary (tool name, provider, model, status): never paths, commands, prompts or user
// names." A tool name comes from the model, so only names the session offered are used as
// labels (anything else is `unknown`): a model that invents names cannot grow the series.

/** Request and tool durations span milliseconds to the 10-minute wait of wait_messages. */
const DURATION_BUCKETS_S = [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120, 600];
/** The label of a tool name the session did not offer. */
export const UNKNOWN_TOOL_LABEL = "unknown";

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly toolCalls: Counter<"tool" | "status">;
  private readonly toolSeconds: Histogram<"tool">;
  private readonly requests: Counter<"provider" | "model" | "status">;
  private readonly requestSeconds: Histogram<"provider" | "model">;
  private readonly tokens: Counter<"provider" | "model">;
  private readonly tasks: Counter<"status">;

  constructor() {
    const registers = [this.registry];
    this.toolCalls = new Counter({
      name: "penguin_tool_calls_total",
      help: "Tool calls that ended, by tool and status (completed or error).",
      labelNames: ["tool", "status"],
      registers,
    });
    this.toolSeconds = new Histogram({
      name: "penguin_tool_call_duration_seconds",
      help: "Time from a tool call's dispatch (its approval) to its output.",
      labelNames: ["tool"],
      buckets: DURATION_BUCKETS_S,
      registers,
    });
    this.requests = new Counter({
      name: "penguin_model_requests_total",
      help: "Model requests that ended (retries are attempts of one request), by status.",
      labelNames: ["provider", "model", "status"],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: "penguin_model_request_duration_seconds",
      help: "Time from a model request's first attempt to its end.",
      labelNames: ["provider", "model"],
      buckets: DURATION_BUCKETS_S,
      registers,
    });
    this.tokens = new Counter({
      name: "penguin_model_tokens_total",
      help: "Tokens of model requests (input, cached or not, and output).",
      labelNames: ["provider", "model"],
      registers,
    });
    this.tasks = new Counter({
      name: "penguin_tasks_total",
      help: "Tasks that ended, by stop reason.",
      labelNames: ["status"],
      registers,
    });
  }

  /** A feed for one session's stream: its session_meta and the names of the tools it offers. */
  session(meta: OmniMessage, tools: Iterable<string>): SessionMetricsFeed {
    return new SessionMetricsFeed(this, meta, tools);
  }

  record(observation: Observation, offered: ReadonlySet<string>): void {
    const status = observation.error ? "error" : "completed";
    const seconds = observation.durationMs / 1000;
    if (observation.kind === "tool") {
      const tool = offered.has(observation.name) ? observation.name : UNKNOWN_TOOL_LABEL;
      this.toolCalls.inc({ tool, status });
      this.toolSeconds.observe({ tool }, seconds);
    } else if (observation.kind === "model") {
      const labels = modelLabels(observation.name);
      this.requests.inc({ ...labels, status });
      this.requestSeconds.observe(labels, seconds);
    }
  }

  countTokens(model: string, tokens: number): void {
    this.tokens.inc(modelLabels(model), tokens);
  }

  countTask(status: string): void {
    this.tasks.inc({ status });
  }

  /** The text exposition format, for `GET /metrics`. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}

function modelLabels(name: string): { provider: string; model: string } {
  const slash = name.indexOf("/");
  return slash < 0
    ? { provider: "unknown", model: name }
    : { provider: name.slice(0, slash), model: name.slice(slash + 1) };
}

/** One session's stream into the server's metrics. */
export class SessionMetricsFeed {
  private readonly recorder = new ObservationRecorder();
  private readonly offered: Set<string>;
  private readonly model: string;

  constructor(
    private readonly metrics: ServerMetrics,
    meta: OmniMessage,
    tools: Iterable<string>,
  ) {
    this.offered = new Set(tools);
    this.recorder.push(meta);
    this.model =
      meta.type === "session_meta" ? `${meta.payload.provider}/${meta.payload.model_id}` : "unknown/unknown";
  }

  push(message: OmniMessage): void {
    if (message.origin !== undefined && message.origin.length > 0) return;
    if (message.type === "event_msg") {
      const payload = message.payload;
      if (payload.type === "tool_list_ready") for (const tool of payload.tools) this.offered.add(tool.name);
      else if (payload.type === "token_usage") this.metrics.countTokens(this.model, payload.request.total);
      else if (payload.type === "task_end") this.metrics.countTask(payload.status);
    }
    for (const observation of this.recorder.push(message)) this.metrics.record(observation, this.offered);
  }
}
