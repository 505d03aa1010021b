import { Worker } from "node:worker_threads";

// A regular expression written by the model runs off the main thread. V8's backtracking engine can
// take hours on a pattern like `(a+)+$` against a long line, and while it runs nothing else on its
// thread does: not the Environment's timeout, not the user's interrupt, not the other sessions of
// a server. So the matching runs in a worker thread, which is terminated when one text takes longer
// than its budget or the call is aborted; the main thread only waits for a message.
//
// The worker's source is a string evaluated by Node (`eval: true`), not a file beside this one:
// core is bundled into one `dist/index.js` and bundled again into the CLI, and a string survives
// both bundles unchanged.

/** The worker: compiles the pattern once, then answers one batch of texts per message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const pattern = new RegExp(workerData.source, workerData.flags);
const progress = new Int32Array(workerData.progress);
// A global or sticky flag would make test() stateful; the pattern is compiled without them.
parentPort.on("message", (request) => {
  if (request.kind === "lines") {
    for (let i = 0; i < request.texts.length; i += 1) {
      Atomics.store(progress, 0, i);
      if (pattern.test(request.texts[i])) return parentPort.postMessage([i]);
    }
    return parentPort.postMessage([]);
  }
  const hits = [];
  for (let i = 0; i < request.texts.length; i += 1) {
    Atomics.store(progress, 0, i);
    const lines = request.texts[i].split("\\n");
    const found = [];
    for (let n = 0; n < lines.length; n += 1) {
      const line = lines[n];
      if (pattern.test(line.endsWith("\\r") ? line.slice(0, -1) : line)) found.push(n);
    }
    hits.push(found);
  }
  parentPort.postMessage(hits);
});
`;

/** Before the worker has started on a batch, its progress slot holds this. */
const NOT_STARTED = -1;
/** The worker's heap: a batch (up to a 10 MiB file, split into lines) fits with room to spare. */
const WORKER_HEAP_MB = 512;
/** The budget is checked this many times per budget, so a slow text is stopped within 1.25 budgets. */
const CHECKS_PER_BUDGET = 4;

/** Why a batch was not answered. */
export type MatchFailure =
  /** One text took longer than the budget; `item` is its index in the batch. */
  | { ok: false; reason: "too-slow"; item: number }
  /** The call's signal aborted the matching. */
  | { ok: false; reason: "aborted" }
  /** The worker died (e.g. out of memory); `message` says how. */
  | { ok: false; reason: "crashed"; message: string };

export interface MatchOptions {
  /** How long one text of the batch may take; past it the worker is terminated. */
  budgetMs: number;
  signal?: AbortSignal;
}

/** Workers alive now, so tests (and the curious) can see that none is left behind. */
const liveWorkers = new Set<Worker>();

/** How many regex worker threads are running in this process. */
export function liveRegexWorkers(): number {
  return liveWorkers.size;
}

/**
 * One compiled regular expression, tested in a worker thread of its own, one line at a time (never
 * across a newline), one batch at a time. The worker starts
 * at the first batch and is ended by `dispose()`, an abort, a text over budget or a crash; the
 * next batch after an ending starts a new one.
 */
export class RegexMatcher {
  private worker: Worker | undefined;
  private progress: Int32Array | undefined;
  /** One batch at a time: the progress slot and the message listeners belong to it. */
  private busy = false;

  private constructor(
    private readonly source: string,
    private readonly flags: string,
  ) {}

  /**
   * Compiles `source` with `flags` (never `g` or `y`: they make a test stateful) on this thread,
   * which is cheap and cannot hang, so a syntax error is reported exactly as `new RegExp` words it.
   */
  static compile(
    source: string,
    flags: string,
  ): { ok: true; matcher: RegexMatcher } | { ok: false; error: string } {
    if (/[gy]/.test(flags)) throw new Error(`RegexMatcher flags must not contain g or y (got "${flags}")`);
    try {
      new RegExp(source, flags);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    return { ok: true, matcher: new RegexMatcher(source, flags) };
  }

  /**
   * The line numbers (0-based) that match, per text, where each text is split into lines at `\n`
   * and a line's trailing `\r` is not part of it. A batch of several small files costs one message.
   */
  matchTexts(
    texts: readonly string[],
    options: MatchOptions,
  ): Promise<{ ok: true; hits: number[][] } | MatchFailure> {
    return this.request("texts", texts, options) as Promise<{ ok: true; hits: number[][] } | MatchFailure>;
  }

  /** The index of the first of `lines` that matches (each tested whole, as it is), or -1. */
  async firstMatchingLine(
    lines: readonly string[],
    options: MatchOptions,
  ): Promise<{ ok: true; index: number } | MatchFailure> {
    const answer = await this.request("lines", lines, options);
    if (!answer.ok) return answer;
    return { ok: true, index: (answer.hits as number[])[0] ?? -1 };
  }

  /** Ends the worker, if one runs. Safe to call more than once. */
  dispose(): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    this.progress = undefined;
    // It leaves liveWorkers on its 'exit', once the thread has really ended.
    void worker.terminate();
  }

  private start(): { worker: Worker; progress: Int32Array } {
    if (this.worker && this.progress) return { worker: this.worker, progress: this.progress };
    const shared = new SharedArrayBuffer(4);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: this.source, flags: this.flags, progress: shared },
      // The worker needs little; a pattern that allocates without end fails there, not here.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // A crash while idle must not become an uncaught 'error' here; the next batch starts a new one.
    worker.on("error", () => {
      if (this.worker === worker) this.dispose();
    });
    worker.on("exit", () => {
      liveWorkers.delete(worker);
      if (this.worker === worker) this.dispose();
    });
    // An idle worker never keeps the process alive; one with a batch in flight does (see request).
    worker.unref();
    liveWorkers.add(worker);
    this.worker = worker;
    this.progress = new Int32Array(shared);
    return { worker, progress: this.progress };
  }

  private request(
    kind: "texts" | "lines",
    texts: readonly string[],
    options: MatchOptions,
  ): Promise<{ ok: true; hits: number[] | number[][] } | MatchFailure> {
    if (options.signal?.aborted) return Promise.resolve({ ok: false, reason: "aborted" });
    if (texts.length === 0) return Promise.resolve({ ok: true, hits: [] });
    if (this.busy) throw new Error("RegexMatcher answers one batch at a time; await the previous one");
    this.busy = true;
    const { worker, progress } = this.start();
    Atomics.store(progress, 0, NOT_STARTED);
    worker.ref();
    return new Promise((resolve) => {
      let done = false;
      // The worker records which text it is on; a text seen at the same index for a whole budget
      // has run at least that long (it started no later than it was first seen).
      let current = NOT_STARTED;
      let seenAt = 0;
      const check = setInterval(
        () => {
          const item = Atomics.load(progress, 0);
          const now = Date.now();
          if (item !== current) {
            current = item;
            seenAt = now;
          } else if (item !== NOT_STARTED && now - seenAt >= options.budgetMs) {
            settle({ ok: false, reason: "too-slow", item }, true);
          }
        },
        Math.max(1, Math.floor(options.budgetMs / CHECKS_PER_BUDGET)),
      );
      const onAbort = () => settle({ ok: false, reason: "aborted" }, true);
      const onMessage = (hits: number[] | number[][]) => settle({ ok: true, hits }, false);
      const onError = (error: Error) =>
        settle({ ok: false, reason: "crashed", message: error.message }, true);
      const onExit = (code: number) =>
        settle({ ok: false, reason: "crashed", message: `the worker exited with code ${code}` }, true);
      const settle = (answer: { ok: true; hits: number[] | number[][] } | MatchFailure, end: boolean) => {
        if (done) return;
        done = true;
        this.busy = false;
        clearInterval(check);
        options.signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (end) {
          if (this.worker === worker) this.dispose();
        } else {
          worker.unref();
        }
        resolve(answer);
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ kind, texts });
    });
  }
}
