import type { OmniMessage } from "./envelope.js";
import type {
  PartialPayload,
  TextPayload,
  ThinkingPayload,
  ToolCallOutputPayload,
  ToolCallPayload,
} from "./model-messages.js";

/** A complete model message kind that producers may stream as partials first. */
export type StreamedPayload = TextPayload | ThinkingPayload | ToolCallPayload | ToolCallOutputPayload;
export type PartialKind = PartialPayload["type"];

/** The partial kind that streams each complete kind, and back. */
const PARTIAL_KIND_OF = {
  text: "partial_text",
  thinking: "partial_thinking",
  tool_call: "partial_tool_call",
  tool_call_output: "partial_tool_call_output",
} as const satisfies Record<StreamedPayload["type"], PartialKind>;

/**
 * Open streams that belong to one model request: when the request ends (`request_end`, or
 * `compaction_end` for a summary), nothing more can arrive for them. Tool outputs are not
 * among them: tools keep running after the model request that called them has ended.
 */
const MODEL_REQUEST_KINDS: ReadonlySet<PartialKind> = new Set([
  "partial_text",
  "partial_thinking",
  "partial_tool_call",
]);

/**
 * How many recently built completes `wasStreamed` remembers. The engine sends the real complete
 * right after its stream's `stop`, so only a handful are ever waiting at once; the bound keeps a
 * producer that never sends completes from growing the aggregator without limit.
 */
const RECENTLY_BUILT_LIMIT = 64;

/** A stream that has started and not stopped yet, as `snapshot()` reports it. */
export interface OpenPartialStream {
  /** Identifies the stream: its origin, kind and tool_call_id (see `streamKeyOf`). */
  key: string;
  kind: PartialKind;
  /** The subagent path of the stream, outer to inner; absent for the main session. */
  origin?: string[];
  /** Set for tool calls and tool outputs. */
  tool_call_id?: string;
  /** Tool name of a tool call, once known. */
  name?: string;
  /** Role of a text stream. */
  role?: "user" | "assistant";
  /** What streamed so far: the text, thinking, arguments or output. */
  content: string;
  /** Images of a tool output that have arrived so far. */
  images?: string[];
  /** Timestamp of the `start` event. */
  started_at: string;
}

function keyOf(origin: readonly string[] | undefined, kind: PartialKind, toolCallId: string | undefined) {
  // JSON of an array is unambiguous whatever characters the ids contain.
  return JSON.stringify([origin ?? [], kind, toolCallId ?? null]);
}

/** The tool_call_id of a tool call or tool output payload, partial or complete. */
function toolCallIdOf(payload: PartialPayload | StreamedPayload): string | undefined {
  switch (payload.type) {
    case "partial_tool_call":
    case "partial_tool_call_output":
    case "tool_call":
    case "tool_call_output":
      return payload.tool_call_id;
    default:
      return undefined;
  }
}

function isPartialPayload(payload: { type: string }): payload is PartialPayload {
  return payload.type.startsWith("partial_");
}

function isStreamedPayload(payload: { type: string }): payload is StreamedPayload {
  return Object.hasOwn(PARTIAL_KIND_OF, payload.type);
}

/** The streamed field of a partial payload: its text, thinking, arguments or output fragment. */
function fragmentOf(payload: PartialPayload): string {
  switch (payload.type) {
    case "partial_text":
      return payload.text;
    case "partial_thinking":
      return payload.thinking;
    case "partial_tool_call":
      return payload.arguments;
    case "partial_tool_call_output":
      return payload.output;
  }
}

/** The streamed field of a complete payload: what its partials' fragments concatenate to. */
export function contentOf(payload: StreamedPayload): string {
  switch (payload.type) {
    case "text":
      return payload.text;
    case "thinking":
      return payload.thinking;
    case "tool_call":
      return payload.arguments;
    case "tool_call_output":
      return payload.output;
  }
}

/**
 * The key of the stream a message belongs to: a partial, or a complete text, thinking, tool call
 * or tool output (keyed like the partials that stream it). Undefined for any other message.
 * Two streams with the same key are never open at once.
 */
export function streamKeyOf(message: OmniMessage): string | undefined {
  if (message.type !== "model_msg") return undefined;
  const payload = message.payload;
  if (isPartialPayload(payload)) return keyOf(message.origin, payload.type, toolCallIdOf(payload));
  if (isStreamedPayload(payload)) {
    return keyOf(message.origin, PARTIAL_KIND_OF[payload.type], toolCallIdOf(payload));
  }
  return undefined;
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * True when two complete messages carry the same streamed content: same kind, origin and
 * tool_call_id, and equal text / thinking / name and arguments / output and images (and role
 * for text). Timestamps, `stop_reason`, `fidelity` and `sender` are not compared: partials do
 * not carry them, so a complete built from partials lacks them.
 */
export function matchesComplete(built: OmniMessage, real: OmniMessage): boolean {
  if (built.type !== "model_msg" || real.type !== "model_msg") return false;
  const a = built.payload;
  const b = real.payload;
  if (!isStreamedPayload(a) || !isStreamedPayload(b) || a.type !== b.type) return false;
  if (!sameStrings(built.origin, real.origin) || contentOf(a) !== contentOf(b)) return false;
  switch (a.type) {
    case "text":
      return a.role === (b as TextPayload).role;
    case "thinking":
      return true;
    case "tool_call":
      return a.tool_call_id === (b as ToolCallPayload).tool_call_id && a.name === (b as ToolCallPayload).name;
    case "tool_call_output":
      return (
        a.tool_call_id === (b as ToolCallOutputPayload).tool_call_id &&
        sameStrings(a.images, (b as ToolCallOutputPayload).images)
      );
  }
}

function buildComplete(stream: OpenPartialStream, timestamp: string): OmniMessage<StreamedPayload> {
  let payload: StreamedPayload;
  switch (stream.kind) {
    case "partial_text":
      payload = { type: "text", role: stream.role ?? "assistant", text: stream.content };
      break;
    case "partial_thinking":
      payload = { type: "thinking", role: "assistant", thinking: stream.content };
      break;
    case "partial_tool_call":
      payload = {
        type: "tool_call",
        role: "assistant",
        name: stream.name ?? "",
        arguments: stream.content,
        tool_call_id: stream.tool_call_id ?? "",
      };
      break;
    case "partial_tool_call_output":
      payload = {
        type: "tool_call_output",
        role: "user",
        output: stream.content,
        tool_call_id: stream.tool_call_id ?? "",
      };
      if (stream.images && stream.images.length > 0) payload.images = [...stream.images];
      break;
  }
  const message = { timestamp, type: "model_msg", payload } as OmniMessage<StreamedPayload>;
  if (stream.origin) message.origin = [...stream.origin];
  return message;
}

function copyStream(stream: OpenPartialStream): OpenPartialStream {
  const copy: OpenPartialStream = { ...stream };
  if (stream.origin) copy.origin = [...stream.origin];
  if (stream.images) copy.images = [...stream.images];
  return copy;
}

/**
 * Turns partial streams back into complete messages, and tracks the streams still open.
 *
 * Feed it every envelope of a stream, in order, with `push`. Streams are told apart by origin
 * (subagent path), partial kind and tool_call_id, so tool outputs that interleave and subagent
 * messages aggregate independently.
 *
 * Contract:
 * - `push` returns, at each stream's `stop`, the complete message built from that stream:
 *   text, thinking, arguments or output are the exact concatenation of the fragments of its
 *   start, delta and stop events (images appended in order), stamped with the stop's
 *   timestamp and the stream's origin. It returns nothing for any other envelope: it never
 *   echoes its input.
 * - It builds only streams it saw start (or was seeded with): a `delta` or `stop` of an unknown
 *   stream is ignored, because its concatenation would be missing a prefix. A new `start` on an
 *   open stream's key replaces it (a retried request streams again from the start).
 * - A real complete message closes the open stream with the same key (a client that missed the
 *   `stop` never shows a stale stream), and `request_end` / `compaction_end` close the model
 *   request's unfinished text, thinking and tool call streams of the same origin.
 *
 * The engine sends the authoritative complete right after each `stop`; it alone carries
 * `stop_reason` and `fidelity`. So, to consume a Penguin stream:
 * - show `snapshot()` as the live part, and the real completes as the record (a web UI;
 *   a UI that reconnects mid-stream seeds a new aggregator from the server's snapshot);
 * - print deltas as they arrive, and a real complete only when `!wasStreamed(complete)` (a CLI);
 * - from a producer that sends partials only, take `push`'s return values as the completes.
 * A `stop` that no complete follows marks an abandoned stream (the engine never approves or runs a
 * tool call the model did not finish); `push` still returns what was built, which is why a
 * consumer that sees real completes should keep those as the record.
 */
export class PartialAggregator {
  private readonly open = new Map<string, OpenPartialStream>();
  private readonly recentlyBuilt = new Map<string, OmniMessage<StreamedPayload>>();

  /** `initial`: open streams to continue, e.g. a snapshot fetched when (re)connecting. */
  constructor(initial: Iterable<OpenPartialStream> = []) {
    for (const stream of initial) {
      const copy = copyStream(stream);
      copy.key = keyOf(copy.origin, copy.kind, copy.tool_call_id);
      this.open.set(copy.key, copy);
    }
  }

  /** Consumes one envelope; returns the complete messages it finished (see the class comment). */
  push(message: OmniMessage): OmniMessage<StreamedPayload>[] {
    if (message.type === "event_msg") {
      const type = message.payload.type;
      if (type === "request_end" || type === "compaction_end") this.closeModelRequest(message.origin);
      return [];
    }
    if (message.type !== "model_msg") return [];
    const key = streamKeyOf(message);
    if (key === undefined) return [];
    const payload = message.payload;
    if (!isPartialPayload(payload)) {
      this.open.delete(key);
      return [];
    }
    if (payload.event_type === "start") {
      this.open.delete(key); // re-inserted last, so snapshot() lists streams in start order
      this.open.set(key, this.newStream(key, message, payload));
    }
    const stream = this.open.get(key);
    if (!stream) return [];
    this.append(stream, payload);
    if (payload.event_type !== "stop") return [];
    this.open.delete(key);
    const built = buildComplete(stream, message.timestamp);
    this.remember(key, built);
    return [built];
  }

  /**
   * True when `complete` is the real copy of a message this aggregator recently built from
   * partials (same stream, same content: see `matchesComplete`). A consumer that already
   * showed the stream uses it to skip the complete that follows.
   */
  wasStreamed(complete: OmniMessage): boolean {
    const key = streamKeyOf(complete);
    const built = key === undefined ? undefined : this.recentlyBuilt.get(key);
    return built !== undefined && matchesComplete(built, complete);
  }

  /** The open streams in the order they started, with their content so far (copies). */
  snapshot(): OpenPartialStream[] {
    return [...this.open.values()].map(copyStream);
  }

  /** Forgets every open stream and every built complete. */
  reset(): void {
    this.open.clear();
    this.recentlyBuilt.clear();
  }

  private newStream(key: string, message: OmniMessage, payload: PartialPayload): OpenPartialStream {
    const stream: OpenPartialStream = { key, kind: payload.type, content: "", started_at: message.timestamp };
    if (message.origin) stream.origin = [...message.origin];
    const toolCallId = toolCallIdOf(payload);
    if (toolCallId !== undefined) stream.tool_call_id = toolCallId;
    return stream;
  }

  private append(stream: OpenPartialStream, payload: PartialPayload): void {
    stream.content += fragmentOf(payload);
    if (payload.type === "partial_tool_call" && stream.name === undefined && payload.name !== undefined) {
      stream.name = payload.name;
    }
    if (payload.type === "partial_text" && stream.role === undefined && payload.role !== undefined) {
      stream.role = payload.role;
    }
    if (payload.type === "partial_tool_call_output" && payload.images && payload.images.length > 0) {
      stream.images = [...(stream.images ?? []), ...payload.images];
    }
  }

  private closeModelRequest(origin: readonly string[] | undefined): void {
    for (const [key, stream] of this.open) {
      if (MODEL_REQUEST_KINDS.has(stream.kind) && sameStrings(stream.origin, origin)) this.open.delete(key);
    }
  }

  private remember(key: string, built: OmniMessage<StreamedPayload>): void {
    this.recentlyBuilt.delete(key);
    this.recentlyBuilt.set(key, built);
    if (this.recentlyBuilt.size > RECENTLY_BUILT_LIMIT) {
      const oldest = this.recentlyBuilt.keys().next().value;
      if (oldest !== undefined) this.recentlyBuilt.delete(oldest);
    }
  }
}
