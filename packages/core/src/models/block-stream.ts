import {
  assistantText,
  type Fidelity,
  type OmniMessage,
  partialText,
  partialThinking,
  partialToolCall,
  type StopReason,
  thinking,
  toolCall,
} from "@penguin/protocol";

/**
 * Turns a provider's stream of fragments into Penguin's streaming discipline: for each block
 * (thinking, text or one tool call) `start -> delta* -> stop`, then the complete message at
 * once, so the deltas of a block always concatenate to exactly its complete message. Only one
 * block is open at a time: opening a block of another kind closes the open one first.
 *
 * Every method is a generator of the messages to yield; adapters delegate with `yield*`.
 */

type BlockKind = "text" | "thinking" | "tool_call";

interface OpenBlock {
  kind: BlockKind;
  content: string;
  toolCallId?: string;
  name?: string;
  fidelity?: Fidelity;
}

/**
 * A tool call whose stream carried no argument fragment still needs a JSON object as its
 * arguments; the block emits it as a last delta so deltas and complete message stay equal.
 */
const EMPTY_ARGUMENTS = "{}";

export class BlockStream {
  #open: OpenBlock | undefined;
  #outputChars = 0;

  /** The kind of the open block, if any. */
  get openKind(): BlockKind | undefined {
    return this.#open?.kind;
  }

  /** The session id of the open tool call, if a tool call is open. */
  get openToolCallId(): string | undefined {
    return this.#open?.kind === "tool_call" ? this.#open.toolCallId : undefined;
  }

  /** Characters streamed so far (thinking, text, tool names and arguments), to estimate usage. */
  get outputChars(): number {
    return this.#outputChars;
  }

  /** Opens a thinking block (closing any other), e.g. on an explicit block-start event. */
  *startThinking(fidelity?: Fidelity): Generator<OmniMessage> {
    yield* this.close();
    this.#open = { kind: "thinking", content: "", fidelity };
    yield partialThinking("start");
  }

  /** Opens a text block (closing any other). */
  *startText(): Generator<OmniMessage> {
    yield* this.close();
    this.#open = { kind: "text", content: "" };
    yield partialText("start");
  }

  /** Opens a tool call block (closing any other). `toolCallId` is already session-unique. */
  *startToolCall(toolCallId: string, name: string): Generator<OmniMessage> {
    yield* this.close();
    this.#open = { kind: "tool_call", content: "", toolCallId, name };
    this.#outputChars += name.length;
    yield partialToolCall("start", toolCallId, "", name);
  }

  /** A thinking fragment; opens a thinking block when another kind (or none) is open. */
  *thinking(fragment: string, fidelity?: Fidelity): Generator<OmniMessage> {
    if (this.#open?.kind !== "thinking") yield* this.startThinking(fidelity);
    if (fragment === "") return;
    this.#open!.content += fragment;
    this.#outputChars += fragment.length;
    yield partialThinking("delta", fragment);
  }

  /** A text fragment; opens a text block when another kind (or none) is open. */
  *text(fragment: string): Generator<OmniMessage> {
    if (this.#open?.kind !== "text") yield* this.startText();
    if (fragment === "") return;
    this.#open!.content += fragment;
    this.#outputChars += fragment.length;
    yield partialText("delta", fragment);
  }

  /** A fragment of the open tool call's arguments. Ignored when no tool call is open. */
  *toolCallArguments(fragment: string): Generator<OmniMessage> {
    const open = this.#open;
    if (open?.kind !== "tool_call" || fragment === "") return;
    open.content += fragment;
    this.#outputChars += fragment.length;
    yield partialToolCall("delta", open.toolCallId!, fragment);
  }

  /** A name that arrives after the tool call started (some servers split it). */
  appendToolCallName(fragment: string): void {
    if (this.#open?.kind === "tool_call") this.#open.name = (this.#open.name ?? "") + fragment;
  }

  /** Merges replay data into the open block (e.g. a signature that arrives at its end). */
  setFidelity(fidelity: Fidelity): void {
    if (this.#open) this.#open.fidelity = { ...this.#open.fidelity, ...fidelity };
  }

  /** Ends the open block normally: `stop`, then its complete message. */
  *close(fidelity?: Fidelity): Generator<OmniMessage> {
    const open = this.#open;
    if (!open) return;
    if (fidelity) this.setFidelity(fidelity);
    this.#open = undefined;
    const opts = open.fidelity ? { fidelity: open.fidelity } : {};
    if (open.kind === "thinking") {
      yield partialThinking("stop");
      yield thinking(open.content, opts);
    } else if (open.kind === "text") {
      yield partialText("stop");
      yield assistantText(open.content, opts);
    } else {
      const id = open.toolCallId!;
      if (open.content === "") {
        open.content = EMPTY_ARGUMENTS;
        yield partialToolCall("delta", id, EMPTY_ARGUMENTS);
      }
      yield partialToolCall("stop", id);
      yield toolCall(open.name ?? "", open.content, id, opts);
    }
  }

  /**
   * Ends the open block because the request failed. Text and thinking received so far become
   * complete messages marked with the failure's stop reason (the engine gives them back as
   * context on the retry). An unfinished tool call only gets its `stop`: a call the model never
   * finished writing must never reach approval or run.
   */
  *abandon(status: StopReason): Generator<OmniMessage> {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    if (open.kind === "tool_call") {
      yield partialToolCall("stop", open.toolCallId!);
      return;
    }
    const opts = { stop_reason: status, ...(open.fidelity ? { fidelity: open.fidelity } : {}) };
    if (open.kind === "thinking") {
      yield partialThinking("stop");
      yield thinking(open.content, opts);
    } else {
      yield partialText("stop");
      yield assistantText(open.content, opts);
    }
  }
}
