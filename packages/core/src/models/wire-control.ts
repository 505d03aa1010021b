import { type FailureOutcome, outcome } from "./outcomes.js";

/**
 * Default idle timeout between two chunks of a stream: "a stalled stream must end". A
 * provider that sends nothing for this long has stalled, even if the connection stays open.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

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
  /** Ends the wait for the next item, if one is pending. */
  #wake: (() => void) | undefined;

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
    this.#wake?.();
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
        const result = await this.#nextOrStop(iterator);
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

  /**
   * The next item, or "stop" once the request is aborted or idle. A fresh promise per item
   * (rather than racing a long-lived one) keeps a long stream from piling up callbacks.
   */
  #nextOrStop<T>(iterator: AsyncIterator<T>): Promise<IteratorResult<T> | "stop"> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#stop("idle"), this.idleTimeoutMs);
      this.#wake = () => {
        clearTimeout(timer);
        resolve("stop");
      };
      iterator.next().then(
        (result) => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve(result);
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.#wake = undefined;
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }
}
