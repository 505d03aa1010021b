import { afterEach } from "vitest";

/**
 * Wraps a test environment factory so that every environment a test starts is cleaned up
 * after it (servers closed, sessions disposed, folders removed), whether the test passed or not.
 */
export function cleanedUpAfterEach<A extends unknown[], E extends { cleanup(): Promise<void> | void }>(
  setup: (...args: A) => Promise<E>,
): (...args: A) => Promise<E> {
  const started: E[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((env) => env.cleanup()));
  });
  return async (...args: A) => {
    const env = await setup(...args);
    started.push(env);
    return env;
  };
}
