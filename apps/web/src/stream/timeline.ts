import type { OmniMessage, OpenPartialStream, PlanStep, StopReason } from "@penguin/protocol";
// The light entry: the aggregator without the zod schemas, which the page never needs.
import { PartialAggregator } from "@penguin/protocol/stream";
import type {
  MessagesResponse,
  PendingApproval,
  PendingQuestion,
  ServerEvent,
  Session,
  TaskState,
} from "../api/types.js";
import { type AgentActivity, agentActivity } from "./agent-activity.js";
import { callDescription } from "./call-description.js";
import { type ChangesView, changesView, revertsOf } from "./changes.js";
import {
  type CompactionView,
  compactionBegun,
  compactionEnded,
  type GoalView,
  goalFinished,
  summaryOf,
} from "./long-session.js";
import { type PlanView, planOf } from "./plan.js";
import { type SessionUsage, usageOf } from "./usage.js";

/** What the chat view shows, rebuilt from the timeline's state on every change. */
export type TimelineItem =
  | {
      kind: "text";
      key: string;
      role: "user" | "assistant";
      text: string;
      streaming: boolean;
      origin?: string[];
    }
  | { kind: "thinking"; key: string; text: string; streaming: boolean; origin?: string[] }
  | { kind: "tool"; key: string; call: ToolCallView; origin?: string[] }
  | { kind: "image"; key: string; src: string; origin?: string[] }
  | { kind: "status"; key: string; tone: "info" | "error"; text: string }
  | { kind: "compaction"; key: string; compaction: CompactionView }
  | { kind: "goal"; key: string; goal: GoalView }
  /** The model's checklist (`plan_updated`): each update shows the whole list. */
  | { kind: "plan"; key: string; steps: PlanStep[]; note?: string }
  /** A plan-mode task's answer was proposed as the plan (`plan_proposed`). */
  | { kind: "plan-proposed"; key: string; path?: string }
  | { kind: "changes"; key: string; changes: ChangesView };

export interface ToolCallView {
  toolCallId: string;
  name: string;
  /** The model-written sentence about the call, as far as it has streamed. */
  description?: string;
  arguments: string;
  /** True while the arguments are still streaming. */
  streaming: boolean;
  output?: string;
  outputStreaming: boolean;
  /** While the output streams: when it started (the stream's `start`), for the elapsed time. */
  runningSince?: string;
  stopReason?: StopReason;
  decision?: { decision: "allow" | "deny" | "forbidden"; source?: string; reason?: string };
  waitingForApproval: boolean;
}

export interface TimelineState {
  items: TimelineItem[];
  approvals: PendingApproval[];
  /** The agent's questions that wait for the user's answer. */
  questions: PendingQuestion[];
  task: TaskState;
  /** Messages and questions between the session's agents, for the Agents panel. */
  agents: AgentActivity;
  /** The session's row as the newest `session_updated` reported it (absent until one arrives). */
  session?: Session;
  /** Tokens and cost of the session and of each finished task. */
  usage: SessionUsage;
  /** The model's context window in tokens, where the config states it. */
  contextWindow?: number;
  /** The model's checklist and the plan that waits for approval. */
  plan: PlanView;
}

const IDLE: TaskState = { state: "idle", pendingSteering: 0 };

/** How many of the newest seeded records a live event may repeat: far more than can be in flight. */
const SEED_OVERLAP_LIMIT = 64;

/**
 * One session's history and live state, as the server reports it: the trace's complete messages,
 * the open partial streams (through the protocol's PartialAggregator), the calls waiting for a
 * decision and the task state. It renders the protocol and decides nothing: every change comes from
 * `seed` (GET .../messages) or from the live stream.
 */
export class SessionTimeline {
  #records: OmniMessage[] = [];
  #aggregator = new PartialAggregator();
  #approvals: PendingApproval[] = [];
  #questions: PendingQuestion[] = [];
  #task: TaskState = IDLE;
  #session: Session | undefined;
  #contextWindow: number | undefined;
  /** The newest records of the last seed, serialised: live events may repeat them (see `#takeLive`). */
  #seededTail: string[] = [];
  /** Where in `#seededTail` the live completes are repeating it; -1 once they are past it. */
  #overlapAt: number | undefined;
  /** Live completes that repeat the seed's tail so far. */
  #held: OmniMessage[] = [];

  /** Replaces everything with the server's answer to GET /api/sessions/:id/messages. */
  seed(response: MessagesResponse): void {
    this.#records = [...response.messages];
    this.#aggregator = new PartialAggregator(response.partial);
    this.#approvals = [...response.approvals];
    this.#questions = [...(response.questions ?? [])];
    this.#task = response.task_state;
    this.#contextWindow = response.context_window;
    this.#seededTail = response.messages.slice(-SEED_OVERLAP_LIMIT).map((message) => JSON.stringify(message));
    this.#overlapAt = undefined;
    this.#held = [];
  }

  /** One envelope of the live stream. */
  applyEnvelope(message: OmniMessage): void {
    this.#aggregator.push(message);
    if (isPartial(message)) return;
    for (const record of this.#takeLive(message)) this.#record(record);
  }

  #record(message: OmniMessage): void {
    this.#records.push(message);
    if (message.type === "event_msg" && message.payload.type === "approval_decision") {
      this.#dropApproval(String(message.payload.tool_call_id));
    }
    if (message.type === "model_msg" && message.payload.type === "tool_call_output") {
      this.#dropApproval(message.payload.tool_call_id);
      // The ask ended (answered, timed out, interrupted): its question no longer waits.
      if (!message.origin?.length) this.#dropQuestion((q) => q.tool_call_id === message.payload.tool_call_id);
    }
    if (
      message.type === "event_msg" &&
      message.payload.type === "question_answered" &&
      !message.origin?.length
    ) {
      const answered = String(message.payload.question_id);
      this.#dropQuestion((q) => q.question_id === answered);
    }
  }

  /** One named `server_event` of the live stream; returns true when the client must reload. */
  applyServerEvent(event: ServerEvent): "resync" | undefined {
    switch (event.type) {
      case "approval_request": {
        const pending = event as PendingApproval & { type: string };
        const id = pending.tool_call.payload.tool_call_id;
        if (!this.#approvals.some((approval) => approval.tool_call_id === id)) {
          const { type: _type, ...fields } = pending;
          this.#approvals.push({ ...fields, tool_call_id: id });
        }
        return undefined;
      }
      case "question_request": {
        const { type: _type, ...pending } = event as PendingQuestion & { type: string };
        if (!this.#questions.some((question) => question.question_id === pending.question_id)) {
          this.#questions.push(pending);
        }
        return undefined;
      }
      case "task_state": {
        const { state, pendingSteering } = event as TaskState & { type: string };
        this.#task = { state, pendingSteering };
        // When a task ends the server denies whatever still waited, and its questions are withdrawn.
        if (state === "idle") {
          this.#approvals = [];
          this.#questions = [];
        }
        return undefined;
      }
      case "session_updated":
        // Another tab (or client) changed the mode or the title; a seed does not carry the row,
        // so the newest one is kept across reloads of the history.
        this.#session = (event as { session: Session }).session;
        return undefined;
      case "resync_required":
        return "resync";
      default:
        return undefined;
    }
  }

  state(): TimelineState {
    return {
      items: buildItems(this.#records, this.#aggregator.snapshot(), this.#approvals),
      approvals: [...this.#approvals],
      questions: [...this.#questions],
      task: this.#task,
      agents: agentActivity(this.#records),
      ...(this.#session ? { session: this.#session } : {}),
      usage: usageOf(this.#records),
      plan: planOf(this.#records),
      ...(this.#contextWindow !== undefined ? { contextWindow: this.#contextWindow } : {}),
    };
  }

  /**
   * The records a live complete adds: none while it may repeat the seed. The server reads the
   * trace and the stream position together, but a record that reached the trace just before the
   * read may still be published just after it. Such records are the newest of the seed and come
   * first on the live stream, in order. So live completes that equal the seed's tail are held
   * back; once they reach its end they were repeats and are dropped, and if one differs before
   * that they were not, and are shown with it (nothing is lost, nothing shown twice).
   */
  #takeLive(message: OmniMessage): OmniMessage[] {
    if (this.#overlapAt === -1) return [message];
    const serialised = JSON.stringify(message);
    if (this.#overlapAt === undefined) {
      const at = this.#seededTail.lastIndexOf(serialised);
      if (at === -1) {
        this.#overlapAt = -1;
        return [message];
      }
      this.#overlapAt = at;
    }
    if (this.#seededTail[this.#overlapAt] !== serialised) {
      const shown = [...this.#held, message];
      this.#held = [];
      this.#overlapAt = -1;
      return shown;
    }
    this.#held.push(message);
    this.#overlapAt += 1;
    if (this.#overlapAt === this.#seededTail.length) {
      this.#held = [];
      this.#overlapAt = -1;
    }
    return [];
  }

  #dropQuestion(matches: (question: PendingQuestion) => boolean): void {
    this.#questions = this.#questions.filter((question) => !matches(question));
  }

  #dropApproval(toolCallId: string): void {
    this.#approvals = this.#approvals.filter((approval) => approval.tool_call_id !== toolCallId);
  }
}

function isPartial(message: OmniMessage): boolean {
  return message.type === "model_msg" && message.payload.type.startsWith("partial_");
}

const toolKey = (origin: string[] | undefined, toolCallId: string) =>
  `tool:${JSON.stringify(origin ?? [])}:${toolCallId}`;

/** The items of the chat view: the records in trace order, then the streams still open. */
export function buildItems(
  records: readonly OmniMessage[],
  live: readonly OpenPartialStream[],
  approvals: readonly PendingApproval[],
): TimelineItem[] {
  const items: TimelineItem[] = [];
  const tools = new Map<string, ToolCallView>();
  const waiting = new Set(approvals.map((approval) => toolKey(approval.origin, approval.tool_call_id)));

  const toolFor = (origin: string[] | undefined, toolCallId: string, name = "", args = "") => {
    const key = toolKey(origin, toolCallId);
    let call = tools.get(key);
    if (!call) {
      call = {
        toolCallId,
        name,
        arguments: args,
        description: callDescription(args),
        streaming: false,
        outputStreaming: false,
        waitingForApproval: waiting.has(key),
      };
      tools.set(key, call);
      items.push({ kind: "tool", key, call, ...(origin ? { origin } : {}) });
    }
    return call;
  };

  // Which change sets a standing revert took back: their "Files changed" blocks say so.
  const reverts = revertsOf(records);

  // The compaction in progress: its summary request's reply and the new context it starts with
  // (the summary and the kept user messages) are part of it, not new chat messages.
  let compacting: CompactionView | undefined;

  records.forEach((message, index) => {
    const key = `r${index}`;
    const origin = message.origin;
    const originField = origin ? { origin } : {};
    if (message.type === "model_msg" && compacting && origin === undefined) {
      const payload = message.payload;
      if (payload.type === "text" && payload.role === "assistant")
        compacting.summary = summaryOf(payload.text);
      return;
    }
    if (message.type === "model_msg") {
      const payload = message.payload;
      switch (payload.type) {
        case "text":
          if (payload.sender === "harness") {
            // The harness's own turns (a goal's "continue with the next step"): a quiet line.
            items.push({ kind: "status", key, tone: "info", text: payload.text });
            return;
          }
          items.push({
            kind: "text",
            key,
            role: payload.role,
            text: payload.text,
            streaming: false,
            ...originField,
          });
          return;
        case "thinking":
          items.push({ kind: "thinking", key, text: payload.thinking, streaming: false, ...originField });
          return;
        case "tool_call": {
          const call = toolFor(origin, payload.tool_call_id, payload.name, payload.arguments);
          call.name = payload.name;
          call.arguments = payload.arguments;
          call.description = callDescription(payload.arguments);
          return;
        }
        case "tool_call_output": {
          const call = toolFor(origin, payload.tool_call_id);
          call.output = payload.output;
          if (payload.stop_reason) call.stopReason = payload.stop_reason;
          for (const [n, src] of (payload.images ?? []).entries()) {
            items.push({ kind: "image", key: `${key}:${n}`, src, ...originField });
          }
          return;
        }
        case "image_url":
          items.push({ kind: "image", key, src: payload.image_url, ...originField });
          return;
        case "inline_data":
          if (payload.mime_type.startsWith("image/")) {
            items.push({
              kind: "image",
              key,
              src: `data:${payload.mime_type};base64,${payload.data}`,
              ...originField,
            });
          }
          return;
        default:
          return;
      }
    }
    if (message.type !== "event_msg") return;
    const event = message.payload as { type: string; [field: string]: unknown };
    switch (event.type) {
      case "approval_decision": {
        const call = toolFor(origin, String(event.tool_call_id));
        const source = event.source as { kind?: string; name?: string } | undefined;
        call.decision = {
          decision: event.decision as "allow" | "deny" | "forbidden",
          ...(source?.kind ? { source: source.name ? `${source.kind}: ${source.name}` : source.kind } : {}),
          ...(typeof event.reason === "string" ? { reason: event.reason } : {}),
        };
        return;
      }
      case "request_end":
        if (event.status !== "completed") {
          const detail = typeof event.error_message === "string" ? `: ${event.error_message}` : "";
          const retry = typeof event.retry_in_ms === "number" ? ` (retrying in ${event.retry_in_ms} ms)` : "";
          items.push({
            kind: "status",
            key,
            tone: "error",
            text: `Model request ${event.status}${detail}${retry}`,
          });
        }
        return;
      case "abort":
        items.push({
          kind: "status",
          key,
          tone: "info",
          text: `Aborted${event.reason ? `: ${event.reason}` : ""}`,
        });
        return;
      case "warning":
        // Something the session went on without (a broken SKILL.md…): the terminal's stderr line.
        items.push({ kind: "status", key, tone: "error", text: `Warning: ${String(event.message ?? "")}` });
        return;
      case "limit_reached":
        items.push({
          kind: "status",
          key,
          tone: "error",
          text: String(event.message ?? "A limit was reached"),
        });
        return;
      case "compaction_begin":
        if (origin !== undefined) return;
        compacting = compactionBegun(event);
        items.push({ kind: "compaction", key, compaction: compacting });
        return;
      case "compaction_end":
        if (origin !== undefined || !compacting) return;
        compactionEnded(compacting, event);
        compacting = undefined;
        return;
      case "goal_finished":
        items.push({ kind: "goal", key, goal: goalFinished(event) });
        return;
      case "plan_updated": {
        if (origin !== undefined || !Array.isArray(event.steps)) return;
        const steps = (event.steps as PlanStep[]).map((s) => ({ step: String(s.step), status: s.status }));
        items.push({
          kind: "plan",
          key,
          steps,
          ...(typeof event.note === "string" ? { note: event.note } : {}),
        });
        return;
      }
      case "plan_proposed":
        if (origin !== undefined) return;
        items.push({
          kind: "plan-proposed",
          key,
          ...(typeof event.path === "string" ? { path: event.path } : {}),
        });
        return;
      case "task_changes":
        if (origin !== undefined) return;
        items.push({ kind: "changes", key, changes: changesView(event, reverts) });
        return;
      case "task_end": {
        const failed = event.status !== "completed";
        const detail = typeof event.message === "string" ? `: ${event.message}` : "";
        items.push({
          kind: "status",
          key,
          tone: failed ? "error" : "info",
          text: `Task ${event.status}${detail}`,
        });
        return;
      }
      default:
        return;
    }
  });

  for (const stream of live) {
    const key = `live:${stream.key}`;
    const originField = stream.origin ? { origin: stream.origin } : {};
    switch (stream.kind) {
      case "partial_text":
        items.push({
          kind: "text",
          key,
          role: stream.role ?? "assistant",
          text: stream.content,
          streaming: true,
          ...originField,
        });
        break;
      case "partial_thinking":
        items.push({ kind: "thinking", key, text: stream.content, streaming: true, ...originField });
        break;
      case "partial_tool_call": {
        const call = toolFor(stream.origin, stream.tool_call_id ?? "", stream.name ?? "", stream.content);
        call.streaming = true;
        break;
      }
      case "partial_tool_call_output": {
        const call = toolFor(stream.origin, stream.tool_call_id ?? "");
        call.output = stream.content;
        call.outputStreaming = true;
        call.runningSince = stream.started_at;
        break;
      }
    }
  }
  return items;
}
