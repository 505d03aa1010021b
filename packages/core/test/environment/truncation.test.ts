import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_OUTPUT_MARKER, REDACTED_MARKER, truncationMarker } from "../../src/environment/markers.js";
import { chunkTool, makeEnvironment, runCall, type TempDirs, tempDirs } from "./support.js";

let dirs: TempDirs;
beforeAll(async () => {
  dirs = await tempDirs();
});
afterAll(async () => {
  await dirs.cleanup();
});

describe("head-kept truncation at maxOutputLength", () => {
  it("keeps output of exactly maxOutputLength characters whole", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["abcde", "fghij"], {}, { maxOutputLength: 10 })]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).toBe("abcdefghij");
  });

  it("cuts output one character past the limit to the head plus the marker", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["abcde", "fghijk"], {}, { maxOutputLength: 10 })]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output.split("\n").slice(0, 2)).toEqual(["abcdefghij", truncationMarker(10)]);
    expect(truncationMarker(10)).toBe("[output truncated: exceeded 10 chars]");
    expect(call.streamed).toBe(call.complete.output);
  });

  it("maxOutputLength <= 0 disables truncation", async () => {
    const text = "y".repeat(40_000);
    const env = makeEnvironment(dirs, [chunkTool([text], {}, { maxOutputLength: 0 })]);
    expect((await runCall(env, "test_tool")).complete.output).toBe(text);
  });

  it("never cuts a surrogate pair in half", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["ab😀cd"], {}, { maxOutputLength: 3 })]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output.startsWith(`ab\n${truncationMarker(3)}`)).toBe(true);
  });

  it("never cuts a surrogate pair held back by the secret redactor either", async () => {
    // Found by the property below: the redactor's hold-back ended between the halves of a pair.
    const env = makeEnvironment(dirs, [chunkTool(["𐀀𐀀𐀀𐀀𐀀", " ", "𐀀"], {}, { maxOutputLength: 3 })], {
      secrets: ["sk-SECRET-1"],
    });
    const call = await runCall(env, "test_tool");
    expect(call.complete.output.startsWith(`𐀀\n${truncationMarker(3)}`)).toBe(true);
  });
});

describe("the streaming invariant: what a user sees equals what the model gets", () => {
  // Text with newlines, astral characters, lone surrogates and marker-like brackets.
  const piece = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: "grapheme", maxLength: 10 }),
    fc.string({ unit: "binary", maxLength: 10 }),
    fc.constantFrom("\n", "\uD83D", "\uDE00", "😀", "[no output]", "sk-SECRET-1", "sk-SEC"),
  );

  it("concat(deltas) === complete.output for random chunks, limits, notes and secrets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 25 }),
        fc.integer({ min: -2, max: 120 }),
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        fc.boolean(),
        async (chunks, limit, note, withSecrets) => {
          const env = makeEnvironment(dirs, [chunkTool(chunks, { note }, { maxOutputLength: limit })], {
            secrets: withSecrets ? ["sk-SECRET-1", "\uD83D\uDE00x"] : [],
          });
          const call = await runCall(env, "test_tool");
          expect(call.streamed).toBe(call.complete.output);
          expect(call.complete.output.length).toBeGreaterThan(0);
          const body = chunks.join("");
          if (body === "") expect(call.complete.output.startsWith(NO_OUTPUT_MARKER)).toBe(true);
          if (withSecrets) expect(call.complete.output).not.toContain("sk-SECRET-1");
          // Well-formed: no lone surrogate reaches the model.
          expect(
            /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(
              call.complete.output,
            ),
          ).toBe(false);
          const marker = `\n${truncationMarker(limit)}`;
          if (limit > 0 && call.complete.output.includes(marker)) {
            expect(call.complete.output.split(marker)[0].length).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("redacts a secret split across two deltas at any point", async () => {
    const secret = "sk-live-0123456789";
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 0, max: secret.length }),
        async (before, after, cut) => {
          fc.pre(!before.includes("sk-") && !after.includes("sk-"));
          const chunks = [before + secret.slice(0, cut), secret.slice(cut) + after];
          const env = makeEnvironment(dirs, [chunkTool(chunks)], { secrets: [secret] });
          const call = await runCall(env, "test_tool");
          expect(call.complete.output).toBe(before + REDACTED_MARKER + after);
          for (const delta of call.deltas) expect(delta).not.toContain(secret.slice(0, 8));
        },
      ),
      { numRuns: 100 },
    );
  });
});
