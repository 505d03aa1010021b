#!/usr/bin/env node
// Sums every workspace package's vitest JSON report (.vitest/results.json) into the one closing
// line that CI reads: "N passed, N failed, N skipped".
// A test file that failed to load counts as one failure; a package that has a test script but
// wrote no report counts as one failure too, so a crashed runner can never look green.
// Each failed test is named just above that line, with the first line of its failure: a log cut
// to its tail (CI keeps only the end of a long run) still says what failed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const roots = ["packages", "apps", "tooling"];
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
const failures = [];
const firstLine = (messages) =>
  String(messages?.[0] ?? "")
    .split("\n")
    .find((line) => line.trim() !== "") ?? "";

for (const root of roots) {
  if (!existsSync(root)) continue;
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    if (!JSON.parse(readFileSync(manifest, "utf8")).scripts?.test) continue;
    const report = join(dir, ".vitest", "results.json");
    if (!existsSync(report)) {
      missing.push(dir);
      continue;
    }
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests ?? 0;
    failed += r.numFailedTests ?? 0;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    for (const file of r.testResults ?? []) {
      const where = relative(process.cwd(), file.name ?? dir);
      if (file.status === "failed" && (file.assertionResults ?? []).length === 0) {
        failed++;
        failures.push(`${where}: ${firstLine([file.message])}`);
      }
      for (const test of file.assertionResults ?? []) {
        if (test.status === "failed")
          failures.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
      }
    }
  }
}

if (missing.length > 0) {
  console.log(`test-summary: no vitest report for: ${missing.join(", ")}`);
  failed += missing.length;
}
for (const failure of failures) console.log(`FAILED ${failure.slice(0, 400)}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
