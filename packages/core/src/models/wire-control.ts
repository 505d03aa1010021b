import { type FailureOutcome, outcome } from "./outcomes.js";

/**
 * Default idle timeout between two chunks of a stream: "a stalled stream must end". A
 * provider that sends nothing for this long has stalled, even if the connection stays open.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Default time to wait for a provider's response headers (system_config `model.timeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * The cancellation of one HTTP request: the caller's abort signal and the idle timeout both
 * abort the SDK request through one controller, and the reason is kept, because the SDKs end a
 * stream silently (no exception) when their request is aborted.
 */
export class WireControl {
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#stop("aborted");
  #reason: "aborted" | "idle" | undefined;
  #stopped!: () => void;
  /** Resolves once the request was aborted or went idle. */
  readonly stopped = new Promise<void>((resolve) => {
    this.#stopped = resolve;
  });

  constructor(
    callerSignal: AbortSignal | undefined,
    readonly idleTimeoutMs: number,
  ) {
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted) this.#stop("aborted");
    else callerSignal?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** The signal to hand to the SDK. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  #stop(reason: "aborted" | "idle"): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#controller.abort();
    this.#stopped();
  }

  /** Why the request was stopped from this side, as an outcome; undefined if it was not. */
  stopOutcome(): FailureOutcome | undefined {
    if (this.#reason === "aborted") return outcome("aborted", "the request was aborted");
    if (this.#reason === "idle") {
      return outcome("timeout", `the provider sent nothing for ${this.idleTimeoutMs} ms (stalled stream)`);
    }
    return undefined;
  }

  /**
   * Iterates `stream`, giving up (and aborting the request) when no item arrives within the
   * idle timeout, and ending at once when the caller aborts.
   */
  async *items<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = stream[Symbol.asyncIterator]();
    let finished = false;
    try {
      while (!this.#reason) {
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<"stop">((resolve) => {
          timer = setTimeout(() => {
            this.#stop("idle");
            resolve("stop");
          }, this.idleTimeoutMs);
        });
        const next = iterator.next();
        // The SDK may still settle it after we stopped waiting; never leave a rejection unhandled.
        next.catch(() => {});
        const result = await Promise.race([next, idle, this.stopped.then(() => "stop" as const)]);
        clearTimeout(timer);
        if (result === "stop") return;
        if (result.done) {
          finished = true;
          return;
        }
        yield result.value;
      }
    } finally {
      if (!finished) iterator.return?.()?.catch(() => {});
    }
  }

  dispose(): void {
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }
}
