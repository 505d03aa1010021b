import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  discoverEventHandlers,
  EVENT_HANDLER_FILE_MAX_BYTES,
  MAX_EVENT_HANDLER_FILES,
  noticeTypeMatches,
  parseEventHandlerFile,
} from "../src/index.js";

// `.agents/events/<name>.md`: which notices a handler takes, how they are delivered, and what is
// done with a file that cannot be used.

describe("parseEventHandlerFile", () => {
  it("reads type, agent and delivery, with queue as the default and the body as guidance", () => {
    expect(parseEventHandlerFile("---\ntype: deploy.*\nagent: reviewer\n---\nCheck the deploy.\n")).toEqual({
      ok: true,
      handler: { type: "deploy.*", agent: "reviewer", delivery: "queue", guidance: "Check the deploy." },
    });
    expect(parseEventHandlerFile("---\ntype: job.exited\ndelivery: wake\n---\n")).toEqual({
      ok: true,
      handler: { type: "job.exited", delivery: "wake", guidance: "" },
    });
  });

  it("refuses a missing or malformed type, an unknown delivery and a bad agent name, saying why", () => {
    const error = (text: string) => {
      const parsed = parseEventHandlerFile(text);
      return parsed.ok ? "" : parsed.error;
    };
    expect(error("---\ndelivery: wake\n---\n")).toContain("type is missing");
    expect(error("---\ntype: deploy*\n---\n")).toContain("is not a notice type such as deploy.done");
    expect(error("---\ntype: deploy.done\ndelivery: later\n---\n")).toContain(
      "delivery must be queue or wake",
    );
    expect(error("---\ntype: deploy.done\nagent: two words\n---\n")).toContain(
      "agent must be a named agent's name",
    );
    expect(error("no front matter")).toContain("no front matter");
  });
});

describe("noticeTypeMatches", () => {
  it("matches an exact type, or a prefix pattern on the types below it only", () => {
    expect(noticeTypeMatches("deploy.done", "deploy.done")).toBe(true);
    expect(noticeTypeMatches("deploy.done", "deploy.done.late")).toBe(false);
    expect(noticeTypeMatches("deploy.*", "deploy.done")).toBe(true);
    expect(noticeTypeMatches("deploy.*", "deploy.a.b")).toBe(true);
    expect(noticeTypeMatches("deploy.*", "deploy")).toBe(false);
    expect(noticeTypeMatches("deploy.*", "deployment.done")).toBe(false);
  });
});

describe("discoverEventHandlers", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "penguin-events-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads the folder in name order and reports the files it leaves out", async () => {
    await writeFile(join(dir, "b.md"), "---\ntype: b.done\n---\n");
    await writeFile(join(dir, "a.md"), "---\ntype: a.done\ndelivery: wake\n---\n");
    await writeFile(join(dir, "bad.md"), "---\ntype: [1, 2]\n---\n");
    await writeFile(
      join(dir, "big.md"),
      `---\ntype: big.done\n---\n${"x".repeat(EVENT_HANDLER_FILE_MAX_BYTES)}`,
    );
    await writeFile(join(dir, "notes.txt"), "not a handler");
    const found = await discoverEventHandlers(dir, "workspace");
    expect(found.handlers.map((handler) => [handler.name, handler.type, handler.source])).toEqual([
      ["a", "a.done", "workspace"],
      ["b", "b.done", "workspace"],
    ]);
    expect(found.problems.map((problem) => problem.file)).toEqual([join(dir, "bad.md"), join(dir, "big.md")]);
    expect(found.problems[1]?.message).toContain(`may have at most ${EVENT_HANDLER_FILE_MAX_BYTES}`);
  });

  it("reads at most 64 files and says which were left out; a missing folder has none", async () => {
    await mkdir(join(dir, "many"));
    for (let n = 0; n <= MAX_EVENT_HANDLER_FILES; n++) {
      await writeFile(join(dir, "many", `h${String(n).padStart(3, "0")}.md`), "---\ntype: x.done\n---\n");
    }
    const found = await discoverEventHandlers(join(dir, "many"), "agent");
    expect(found.handlers).toHaveLength(MAX_EVENT_HANDLER_FILES);
    expect(found.problems[0]?.message).toContain(
      `1 of its ${MAX_EVENT_HANDLER_FILES + 1} files were left out`,
    );
    expect(await discoverEventHandlers(join(dir, "none"), "agent")).toEqual({ handlers: [], problems: [] });
  });
});
