import type { ServerResponse } from "node:http";
import { formatSseFrame, SSE_HEADERS, type SseFrame } from "./sse.js";
import type { StreamFailure } from "./turn-plan.js";

/**
 * Writes a streamed answer frame by frame and injects the turn's scripted failure.
 *
 * `after_chunks` counts the delta frames (pieces of thinking, text or arguments). With N > 0
 * the status line, the opening events and N deltas go out, then the failure happens; when the
 * answer has N deltas or fewer, it happens after the last one, before the closing events.
 * With N = 0 the failure comes before anything else: a stall sends not even the status line
 * (so the SDK's own request `timeout`, which only covers the wait for headers, fires), a cut
 * closes the connection without a response, a malformed stream breaks its very first event.
 */

/** The index of the frame before which the failure happens. */
export function failureFrameIndex(frames: readonly SseFrame[], afterChunks: number): number {
  if (afterChunks === 0) return 0;
  let deltasSeen = 0;
  let afterLastDelta = -1;
  for (let i = 0; i < frames.length; i++) {
    if (!frames[i]!.delta) continue;
    if (deltasSeen === afterChunks) return i;
    deltasSeen++;
    afterLastDelta = i + 1;
  }
  return afterLastDelta >= 0 ? afterLastDelta : Math.max(0, frames.length - 1);
}

function isGone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded || res.socket?.destroyed === true;
}

/** Resolves once the connection is gone (the client left, or the server was closed). */
export function untilClosed(res: ServerResponse): Promise<void> {
  if (isGone(res)) return Promise.resolve();
  return new Promise((resolve) => res.once("close", () => resolve()));
}

function sleepUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once("close", done);
    function done() {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    }
  });
}

/** Writes `text`, waiting for the socket to drain when its buffer is full. */
async function writeWithBackpressure(res: ServerResponse, text: string): Promise<void> {
  if (res.write(text)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** A copy of `frame` whose data is cut in half: never valid JSON, never `[DONE]`. */
function brokenFrame(frame: SseFrame): SseFrame {
  return { event: frame.event, data: frame.data.slice(0, Math.max(1, Math.floor(frame.data.length / 2))) };
}

async function fail(res: ServerResponse, failure: StreamFailure, frame: SseFrame | undefined): Promise<void> {
  if (failure.kind === "stall") {
    await untilClosed(res);
    return;
  }
  const next = frame ?? { data: "[DONE]" };
  if (failure.kind === "malformed") {
    await writeWithBackpressure(res, formatSseFrame(brokenFrame(next)));
    res.end();
    return;
  }
  // cut: half of the next event reaches the client, then the connection is destroyed.
  const text = formatSseFrame(next);
  await new Promise<void>((resolve) =>
    res.write(text.slice(0, Math.floor(text.length / 2)), () => resolve()),
  );
  res.destroy();
}

export interface PlayStreamOptions {
  headers: Record<string, string>;
  chunkDelayMs: number;
  failure?: StreamFailure;
}

export async function playStream(
  res: ServerResponse,
  frames: readonly SseFrame[],
  options: PlayStreamOptions,
) {
  const { failure } = options;
  const failAt = failure ? failureFrameIndex(frames, failure.afterChunks) : -1;
  if (failure && failAt === 0 && failure.kind !== "malformed") {
    if (failure.kind === "stall") await untilClosed(res);
    else res.destroy();
    return;
  }
  res.writeHead(200, { ...SSE_HEADERS, ...options.headers });
  res.flushHeaders();
  let deltasWritten = 0;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i]!;
    if (failure && i === failAt) {
      await fail(res, failure, frame);
      return;
    }
    if (frame.delta && deltasWritten > 0 && options.chunkDelayMs > 0) {
      await sleepUnlessClosed(res, options.chunkDelayMs);
    }
    if (isGone(res)) return;
    await writeWithBackpressure(res, formatSseFrame(frame));
    if (frame.delta) deltasWritten++;
  }
  if (failure && failAt >= frames.length) {
    await fail(res, failure, undefined);
    return;
  }
  res.end();
}
