import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../vitest.shared.js";

// Unlike the other suites this one keeps the real HOME: npm reads the machine's npmrc (registry,
// certificates, Node headers for native builds) from it.
export default defineConfig({ test: { ...sharedTestConfig, testTimeout: 600_000, hookTimeout: 600_000 } });
