import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The browser tests start a real server, a fake model and Chromium, and wait for real streams.
export default mergeConfig(shared, defineConfig({ test: { testTimeout: 120_000, hookTimeout: 60_000 } }));
