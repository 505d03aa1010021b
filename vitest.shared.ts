import { defineConfig } from "vitest/config";

// One vitest setting for every package: a JSON report per package lets scripts/test-summary.mjs
// print the single closing line CI reads ("N passed, N failed, N skipped").
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: ".vitest/results.json" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
