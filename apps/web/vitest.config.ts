import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The browser tests start a real server, a fake model and Chromium, and wait for real streams:
// an `expect.poll` waits for what the page shows next, which on a loaded 2-core machine can take
// seconds, not vitest's default of one (a poll ends as soon as its condition holds).
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      testTimeout: 120_000,
      hookTimeout: 60_000,
      expect: { poll: { timeout: 15_000 } },
      // On CI a browser test that fails runs once more: Chromium, the server and every other
      // package's tests share two cores there, and a page that stalls once (a session creation
      // that never showed its chat page, 2026-12-05) must not keep a whole stop from landing. A
      // test that fails twice still fails, and locally nothing is retried.
      retry: process.env.CI ? 1 : 0,
    },
  }),
);
