/**
 * A module's zod schemas, built the first time they are asked for and kept. Building the
 * protocol's schemas (some 330 of them) took 16 ms of every CLI start before its first model
 * request (docs/benchmarks.md, section 11), and a program that only builds envelopes and checks
 * them with the precompiled check (parse.ts) never needs them. The `@penguin/protocol/schemas`
 * entry builds them all as it loads, for clients that use them as constants.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
