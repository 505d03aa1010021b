/** Waits `ms`, or less when `signal` aborts first; says which happened. */
export function sleepUnlessAborted(
  ms: number,
  signal: AbortSignal | undefined,
): Promise<"slept" | "aborted"> {
  if (signal?.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish("slept"), ms);
    const onAbort = () => finish("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    function finish(result: "slept" | "aborted") {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    }
  });
}
