import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { SecretRedactor } from "../../src/environment/redact.js";
import { toWellFormed, WellFormedStream } from "../../src/environment/well-formed.js";
import { chunkTool, makeEnvironment, runCall, type TempDirs, tempDirs } from "./support.js";

let dirs: TempDirs;
beforeAll(async () => {
  dirs = await tempDirs();
});
afterAll(async () => {
  await dirs.cleanup();
});

describe("odd strings from tools", () => {
  it("replaces lone surrogates with U+FFFD and keeps pairs split across deltas intact", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["a\uD83D", "\uDE00b", "\uDC00c\uD800"])]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).toBe("a😀b\uFFFDc\uFFFD");
    expect(call.streamed).toBe(call.complete.output);
  });

  it("passes through text decoded from invalid UTF-8 and control characters unchanged", async () => {
    const decoded = Buffer.from([0x66, 0xff, 0xfe, 0x00, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x0d]).toString(
      "utf8",
    );
    const env = makeEnvironment(dirs, [chunkTool([decoded])]);
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).toBe(decoded);
    expect(JSON.parse(JSON.stringify(call.complete))).toEqual(call.complete);
  });

  it("toWellFormed leaves well-formed text alone", () => {
    expect(toWellFormed("plain 😀 text")).toBe("plain 😀 text");
    const stream = new WellFormedStream();
    expect(stream.push("x\uD83D") + stream.flush()).toBe("x\uFFFD");
  });
});

describe("secret redaction", () => {
  it("redacts every configured secret, longest first, and ignores blank entries", () => {
    const redactor = new SecretRedactor(["abc", "abcdef", "", "  "]);
    expect(redactor.redact("x abcdef y abc z")).toBe(`x ${REDACTED_MARKER} y ${REDACTED_MARKER} z`);
  });

  it("the streaming form gives the same result for every split of the input", () => {
    const redactor = new SecretRedactor(["s3cr3t", "token-XYZ"]);
    const input = "a s3cr3t b token-XYZ c s3cr3ts3cr3t d toke";
    const expected = redactor.redact(input);
    for (let cut = 0; cut <= input.length; cut += 1) {
      for (let cut2 = cut; cut2 <= input.length; cut2 += 3) {
        const stream = redactor.stream();
        const out =
          stream.push(input.slice(0, cut)) +
          stream.push(input.slice(cut, cut2)) +
          stream.push(input.slice(cut2)) +
          stream.flush();
        expect(out).toBe(expected);
      }
    }
  });

  it("redacts secrets in notes and error messages too", async () => {
    const env = makeEnvironment(dirs, [chunkTool(["ok"], { note: "[used key hunter2]" })], {
      secrets: ["hunter2"],
    });
    const call = await runCall(env, "test_tool");
    expect(call.complete.output).toBe(`ok\n[used key ${REDACTED_MARKER}]`);
  });
});
