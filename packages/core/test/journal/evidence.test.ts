import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileEffect } from "@penguin/protocol";
import type { JournalEntry } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { gatherEvidence } from "../../src/index.js";

// Penguin's own check of an uncertain call: each journaled file's hash now, against before/after.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder() {
  const dir = mkdtempSync(join(tmpdir(), "penguin-evidence-"));
  dirs.push(dir);
  return dir;
}
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

function entry(files: FileEffect[], processId?: string): JournalEntry {
  return {
    toolCallId: "call_1",
    name: "write_file",
    arguments: "{}",
    requestedAt: new Date(0).toISOString(),
    state: "dispatched",
    readOnly: false,
    files,
    ...(processId !== undefined ? { processId } : {}),
    uncertain: true,
  };
}

describe("gatherEvidence", () => {
  it("every file has its after-hash (a deleted one is gone): applied, suggests accept", async () => {
    const dir = folder();
    writeFileSync(join(dir, "a.txt"), "new");
    const evidence = await gatherEvidence(
      entry([
        { path: join(dir, "a.txt"), before_sha256: sha("old"), after_sha256: sha("new") },
        { path: join(dir, "gone.txt"), before_sha256: sha("x"), after_sha256: null },
      ]),
    );
    expect(evidence).toMatchObject({ verdict: "applied", suggestion: "accept" });
    expect(evidence.files.map((f) => f.state)).toEqual(["after", "after"]);
    expect(evidence.summary).toMatch(/^applied: .*a\.txt, .*gone\.txt have the hash the call would give$/);
  });

  it("every file still has its before-hash (a new file still absent): not applied, suggests retry", async () => {
    const dir = folder();
    writeFileSync(join(dir, "a.txt"), "old");
    const evidence = await gatherEvidence(
      entry([
        { path: join(dir, "a.txt"), before_sha256: sha("old"), after_sha256: sha("new") },
        { path: join(dir, "created.txt"), before_sha256: null, after_sha256: sha("c") },
      ]),
    );
    expect(evidence).toMatchObject({ verdict: "not applied", suggestion: "retry" });
    expect(evidence.files[1]).toMatchObject({ currentSha256: null, state: "before" });
  });

  it("a file with a third content, or some applied and some not: changed since, no suggestion", async () => {
    const dir = folder();
    writeFileSync(join(dir, "a.txt"), "edited by hand");
    const third = await gatherEvidence(
      entry([{ path: join(dir, "a.txt"), before_sha256: sha("old"), after_sha256: sha("new") }]),
    );
    expect(third.verdict).toBe("changed since");
    expect(third.suggestion).toBeUndefined();
    expect(third.files[0]?.currentSha256).toBe(sha("edited by hand"));
    expect(third.summary).toContain("has neither the hash before nor the hash after");

    writeFileSync(join(dir, "b.txt"), "new");
    writeFileSync(join(dir, "c.txt"), "old");
    const half = await gatherEvidence(
      entry([
        { path: join(dir, "b.txt"), before_sha256: sha("old"), after_sha256: sha("new") },
        { path: join(dir, "c.txt"), before_sha256: sha("old"), after_sha256: sha("new") },
      ]),
    );
    expect(half.verdict).toBe("changed since");
    expect(half.suggestion).toBeUndefined();
  });

  it("a process is described by the lookup the caller plugs in, else unknown", async () => {
    const plain = await gatherEvidence(entry([], "job_7"));
    expect(plain).toMatchObject({ verdict: "unknown", process: "process job_7: unknown" });
    expect(plain.suggestion).toBeUndefined();
    const described = await gatherEvidence(entry([], "job_7"), {
      describeProcess: (id) => (id === "job_7" ? "exited 0" : undefined),
    });
    expect(described.summary).toBe("process job_7: exited 0");
    // A line that names the process itself (the registry's) is used as it is.
    const named = await gatherEvidence(entry([], "cmd_2"), {
      describeProcess: (id) => `${id} (run_command) "make": exited 0`,
    });
    expect(named.summary).toBe('cmd_2 (run_command) "make": exited 0');
  });

  it("no journaled effect: unknown, nothing to compare", async () => {
    const evidence = await gatherEvidence(entry([]));
    expect(evidence).toMatchObject({
      verdict: "unknown",
      summary: "unknown: no file change was journaled, so there is nothing to compare",
    });
  });
});
