import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SpoolTail } from "../../src/processes/spool-tail.js";
import { waitUntil } from "./support.js";

// Following a job's spool: what another process appends reaches Penguin when it is written, not
// at the next turn of a timer.

const tails: SpoolTail[] = [];
const roots: string[] = [];
afterEach(() => {
  for (const tail of tails.splice(0)) tail.stop();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function spool(): string {
  const root = mkdtempSync(join(tmpdir(), "penguin-spool-"));
  roots.push(root);
  const file = join(root, "cmd_1.out");
  writeFileSync(file, "", { mode: 0o600 });
  return file;
}

/** Appends as a job does: another process writing to the file. */
function appendFromAnotherProcess(file: string, text: string): void {
  execFileSync("sh", ["-c", 'printf %s "$1" >> "$2"', "sh", text, file]);
}

function follow(file: string, fallbackPollMs: number): { text: () => string } {
  let text = "";
  const decoder = new TextDecoder();
  const tail = new SpoolTail(
    file,
    (bytes) => {
      text += decoder.decode(bytes, { stream: true });
    },
    { fallbackPollMs },
  );
  tails.push(tail);
  tail.start();
  return { text: () => text };
}

describe.skipIf(process.platform !== "linux")("spool tail", () => {
  it("hands over output another process appends as soon as it is written, woken by the file's change (no poll in between)", async () => {
    const file = spool();
    // A fallback poll far beyond the test's wait: only the change notification can deliver.
    const followed = follow(file, 600_000);
    appendFromAnotherProcess(file, "first\n");
    await waitUntil(() => followed.text() === "first\n", "the first write to arrive", 5_000);
    appendFromAnotherProcess(file, "second\n");
    await waitUntil(() => followed.text() === "first\nsecond\n", "the second write to arrive", 5_000);
  });

  it("reads a burst larger than one turn's budget to its end", async () => {
    const file = spool();
    const followed = follow(file, 600_000);
    // 6 MiB in one burst: beyond the 4 MiB read in one turn of the event loop.
    const bytes = 6 * 1024 * 1024;
    execFileSync("sh", ["-c", `head -c ${bytes} /dev/zero | tr '\\0' x >> "$1"`, "sh", file]);
    await waitUntil(() => followed.text().length === bytes, "the whole burst to arrive", 10_000);
    expect(/^x+$/.test(followed.text())).toBe(true);
  });

  it("stop reads what is left and closes: nothing arrives after it", async () => {
    const file = spool();
    const followed = follow(file, 600_000);
    writeFileSync(file, "kept\n", { flag: "a" });
    tails[0]?.stop();
    expect(followed.text()).toBe("kept\n");
    appendFromAnotherProcess(file, "late\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(followed.text()).toBe("kept\n");
  });
});
