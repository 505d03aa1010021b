import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { baseNameMatcher } from "../../src/tools/extended/glob.js";
import { liveRegexWorkers } from "../../src/tools/extended/regex-matcher.js";
import { waitUntil } from "../jobs/support.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// A regular expression from the model must never freeze the process: it runs in a worker thread
// that is ended when a file takes longer than `regexTimeoutMs` or the call is interrupted. Each
// catastrophic case below backtracks for hours on V8's engine, so without the worker these tests
// would hang instead of reading the message.

/** `(a+)+$` tries every split of the a's before it can fail on the final b: 2^40 steps. */
const SLOW_LINE = `${"a".repeat(40)}b`;
/** The same blow-up, case-insensitive: 48 hex digits that the `$` cannot follow. */
const SLOW_HEX_LINE = `${"0123456789ABCDEF".repeat(3)}!`;

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
  await mkdir(join(ws, "src"), { recursive: true });
  await writeFile(join(ws, "src", "a.ts"), "const x = 1;\n// TODO: fix x\nexport const y = x + 1;\n");
  await writeFile(join(ws, "src", "b.ts"), "function todo() {}\nTODO again\r\n");
  await writeFile(join(ws, "notes.md"), "# Notes\nTODO: write notes\n");
});
afterEach(async () => {
  // Whatever a call ended with, its worker thread is gone afterwards.
  await waitUntil(() => liveRegexWorkers() === 0, "the regex worker threads to end");
  await dirs.cleanup();
});

function environment(regexTimeoutMs: number) {
  return extendedEnvironment(dirs, { limits: { search_text: { regexTimeoutMs } } });
}

const footer = (output: string) => output.split("\n").pop();

describe("search_text with a catastrophic regular expression", () => {
  it("stops with a message naming the file, and the next search of the session works", async () => {
    await writeFile(join(ws, "src", "slow.txt"), `fine line\n${SLOW_LINE}\n`);
    const env = environment(200);
    const slow = (await runCall(env, "search_text", { pattern: "(a+)+$", regex: true }, "call_1")).complete;
    expect(slow.stop_reason).toBe("failed");
    expect(slow.output).toBe(
      "The regular expression took longer than 0.2 s on src/slow.txt (catastrophic backtracking?), so the search stopped. Simplify it (avoid nested quantifiers like (a+)+ and overlapping alternatives like (a|a)*), or search for a literal string with regex: false.",
    );
    const next = (await runCall(env, "search_text", { pattern: "^TODO", regex: true }, "call_2")).complete;
    expect(next.stop_reason).toBe("completed");
    expect(next.output).toBe(
      ["notes.md:2:TODO: write notes", "src/b.ts:2:TODO again", "[2 matches in 2 files (4 searched)]"].join(
        "\n",
      ),
    );
  });

  it("stops the same way with ignore_case, naming the slow file among many batched ones", async () => {
    await mkdir(join(ws, "many"));
    for (let i = 0; i < 1_500; i += 1) {
      await writeFile(join(ws, "many", `f${String(i).padStart(4, "0")}.txt`), `deadbeef ${i}\n`);
    }
    await writeFile(join(ws, "many", "f1200-slow.txt"), `${SLOW_HEX_LINE}\n`);
    const env = environment(200);
    const out = (
      await runCall(env, "search_text", {
        pattern: "([0-9a-f]+)+$",
        regex: true,
        ignore_case: true,
        path: "many",
      })
    ).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toMatch(/^The regular expression took longer than 0\.2 s on many\/f1200-slow\.txt /);
  });

  it("ends promptly as an aborted call when the user interrupts it", async () => {
    await writeFile(join(ws, "slow.txt"), `${SLOW_LINE}\n`);
    // A budget far beyond the test's: only the interrupt can end this call.
    const env = environment(600_000);
    const interrupt = new AbortController();
    const call = runCall(env, "search_text", { pattern: "(a+)+$", regex: true, path: "slow.txt" }, "call_1", {
      signal: interrupt.signal,
    });
    await waitUntil(() => liveRegexWorkers() === 1, "the regex worker to start");
    interrupt.abort();
    const out = (await call).complete;
    expect(out.stop_reason).toBe("aborted");
  });
});

describe("search_text with an ordinary regular expression", () => {
  it("finds the same lines as before: flags, line numbers, and a CR before the newline left out", async () => {
    const env = environment(10_000);
    const loose = (await runCall(env, "search_text", { pattern: "^todo", regex: true, ignore_case: true }))
      .complete;
    expect(loose.output).toBe(
      ["notes.md:2:TODO: write notes", "src/b.ts:2:TODO again", "[2 matches in 2 files (3 searched)]"].join(
        "\n",
      ),
    );
    const strict = (await runCall(env, "search_text", { pattern: "^todo", regex: true }, "call_2")).complete;
    expect(strict.output).toBe(`No matches for "^todo" in ${ws}.\n[0 matches in 0 files (3 searched)]`);
    const lineEnd = (await runCall(env, "search_text", { pattern: "again$", regex: true }, "call_3"))
      .complete;
    expect(lineEnd.output.split("\n")[0]).toBe("src/b.ts:2:TODO again");
  });

  it("reports matches of many files, batched, in walk order", async () => {
    await mkdir(join(ws, "many"));
    for (let i = 0; i < 1_500; i += 1) {
      const body = i % 500 === 7 ? `skip\nid-${i} here\n` : `nothing ${i}\n`;
      await writeFile(join(ws, "many", `f${String(i).padStart(4, "0")}.txt`), body);
    }
    const out = (
      await runCall(environment(10_000), "search_text", { pattern: "^id-\\d+ ", regex: true, path: "many" })
    ).complete;
    expect(out.output).toBe(
      [
        "many/f0007.txt:2:id-7 here",
        "many/f0507.txt:2:id-507 here",
        "many/f1007.txt:2:id-1007 here",
        "[3 matches in 3 files (1500 searched)]",
      ].join("\n"),
    );
  });
});

describe("search_text include globs", () => {
  it("refuses a glob with a / and says which path and include to pass instead", async () => {
    const out = (
      await runCall(environment(10_000), "search_text", { pattern: "TODO", include: ["src/**/*.ts"] })
    ).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      'include matches file base names only, and "src/**/*.ts" has a "/": pass path: "src" and include: ["*.ts"].',
    );
    const nested = (
      await runCall(environment(10_000), "search_text", {
        pattern: "TODO",
        path: "pkg",
        include: ["lib/*.js"],
      })
    ).complete;
    expect(nested.output).toContain('pass path: "pkg/lib" and include: ["*.js"].');
  });

  it("says so in the footer when include left out every file", async () => {
    const out = (await runCall(environment(10_000), "search_text", { pattern: "TODO", include: ["*.rs"] }))
      .complete;
    expect(out.stop_reason).toBe("completed");
    expect(footer(out.output)).toBe(
      '[0 matches in 0 files (0 searched); include ["*.rs"] matched none of the 3 files here (it matches base names): widen it or drop it]',
    );
  });

  it("match by hand, so a glob that would backtrack as a RegExp cannot hang the walk", async () => {
    // As the RegExp ^.*a.*a…b$ this is C(200, 12) steps against the long name; by hand, 200 × 25.
    await writeFile(join(ws, "a".repeat(200)), "TODO\n");
    const glob = `${"*a".repeat(12)}b`;
    const out = (await runCall(environment(10_000), "search_text", { pattern: "TODO", include: [glob] }))
      .complete;
    expect(footer(out.output)).toBe(
      `[0 matches in 0 files (0 searched); include ${JSON.stringify([glob])} matched none of the 4 files here (it matches base names): widen it or drop it]`,
    );
    expect(baseNameMatcher([`${"*a".repeat(12)}*`])("a".repeat(200))).toBe(true);
  });

  it("report a backwards range and a brace explosion as broken globs", async () => {
    expect(() => baseNameMatcher(["[z-a].ts"])).toThrow('range "z-a" is backwards in glob "[z-a].ts"');
    expect(() => baseNameMatcher(["{a,b}".repeat(11)])).toThrow(/has more than 1024 alternatives/);
    const out = (await runCall(environment(10_000), "search_text", { pattern: "x", include: ["{a,b"] }))
      .complete;
    expect(out.output).toBe('Invalid include glob: unclosed "{" in glob "{a,b".');
  });
});
