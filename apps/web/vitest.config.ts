import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The browser tests start a real server, a fake model and Chromium, and wait for real streams:
// an `expect.poll` waits for what the page shows next, which on a loaded 2-core machine can take
// seconds, not vitest's default of one (a poll ends as soon as its condition holds).
export default mergeConfig(
  shared,
  defineConfig({
    test: { testTimeout: 120_000, hookTimeout: 60_000, expect: { poll: { timeout: 15_000 } } },
  }),
);
