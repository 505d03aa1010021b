import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { REDACTED_MARKER } from "../../src/environment/markers.js";
import { loadCassette } from "../../src/models/cassette.js";
import { createRecordingModel } from "../../src/models/recorder.js";
import { createReplayModel } from "../../src/models/replay.js";
import { collect, request, tempFile } from "../models/helpers.js";

const SCRIPT = `
turns:
  - thinking: "Plan: read the file."
    thinking_signature: "sig-opaque-123"
    text: "Reading."
    tool_calls:
      - id: toolu_1
        name: read_file
        arguments: '{"path":  "a.txt"}'
    usage: { input_tokens: 120, output_tokens: 30, cache_read_tokens: 80, cache_write_tokens: 10 }
  - error: { status: 401, message: "bad key" }
  - error: { status: 400, message: "context too long" }
  - text: "Broken off here, after some words."
    malformed: { after_chunks: 1 }
  - text: "Cut off here."
    cut: { after_chunks: 0 }
  - text: "All good."
`;

/** Plays every turn of a recording model once, the way the engine asks: one request at a time. */
async function playAll(model: ReturnType<typeof createReplayModel>, count: number) {
  const results = [];
  for (let n = 0; n < count; n++)
    results.push(await collect(model, request({ messages: [userText(`request ${n}`)] })));
  return results;
}

const summary = (results: Awaited<ReturnType<typeof playAll>>) =>
  results.map((r) => ({
    status: r.outcome.status,
    permanent: r.outcome.permanent ?? false,
    error: r.outcome.errorMessage?.startsWith("HTTP") ? r.outcome.errorMessage : undefined,
    complete: r.complete,
  }));

describe("recording model: every outcome becomes a turn that replays the same way", () => {
  it("records answers, HTTP errors and broken streams; the replay of the recording matches the original", async () => {
    const scripted = tempFile("script.yaml", SCRIPT);
    const file = join(mkdtempSync(join(tmpdir(), "penguin-rec-")), "nested", "recorded.yaml");
    const recording = createRecordingModel(createReplayModel({ file: scripted }), file);
    expect(recording.info).toMatchObject({ provider: "replay", modelId: scripted });
    const original = await playAll(recording, 6);

    const cassette = loadCassette(file);
    expect(cassette.description).toContain(`recorded from replay/${scripted}`);
    expect(cassette.turns[0]).toEqual({
      thinking: "Plan: read the file.",
      thinking_signature: "sig-opaque-123",
      text: "Reading.",
      // Not compact JSON: kept as the exact string the model streamed.
      tool_calls: [{ id: "toolu_1", name: "read_file", arguments: '{"path":  "a.txt"}' }],
      usage: { input_tokens: 120, output_tokens: 30, cache_read_tokens: 80, cache_write_tokens: 10 },
    });
    expect(cassette.turns.slice(1, 3)).toEqual([
      { error: { status: 401, message: "bad key" } },
      { error: { status: 400, message: "context too long" } },
    ]);
    expect(cassette.turns[3]).toMatchObject({ text: "Broken off here,", malformed: { after_chunks: 1 } });
    expect(cassette.turns[4]).toMatchObject({ cut: { after_chunks: 0 } });
    expect(cassette.turns[4].text).toBeUndefined();
    expect(cassette.turns[5]).toMatchObject({ text: "All good." });

    const replayed = await playAll(createReplayModel({ file }), 6);
    expect(summary(replayed)).toEqual(summary(original));
    expect(replayed.map((r) => r.outcome.usage)).toEqual(original.map((r) => r.outcome.usage));
    expect(summary(original).map((s) => s.status)).toEqual([
      "completed",
      "auth",
      "failed",
      "malformed",
      "failed",
      "completed",
    ]);
  });

  it("an interrupted request is kept as a stall, so a replay interrupted at the same point ends the same way", async () => {
    const scripted = tempFile(
      "slow.yaml",
      `turns:\n  - { text: "slow words here", chunk_size: 5, chunk_delay_ms: 2000 }\n`,
    );
    const file = join(mkdtempSync(join(tmpdir(), "penguin-rec-")), "interrupted.yaml");
    const recording = createRecordingModel(createReplayModel({ file: scripted }), file);
    const controller = new AbortController();
    const stream = recording.stream(request({ signal: controller.signal }));
    await stream.next(); // partial_text start
    await stream.next(); // the first delta
    controller.abort();
    let step = await stream.next();
    while (!step.done) step = await stream.next();
    expect(step.value.status).toBe("aborted");
    const [turn] = loadCassette(file).turns;
    expect(turn).toMatchObject({ text: "slow ", stall: { after_chunks: 1 } });
    expect(turn.label).toMatch(/^recorded aborted/);

    const again = new AbortController();
    const replay = createReplayModel({ file, stallTimeoutMs: 60_000 });
    const played = replay.stream(request({ signal: again.signal }));
    const texts: string[] = [];
    let next = await played.next();
    while (!next.done) {
      const payload = next.value.payload as { type: string; event_type?: string; text?: string };
      if (payload.type === "partial_text" && payload.event_type === "delta") {
        texts.push(payload.text ?? "");
        again.abort();
      }
      next = await played.next();
    }
    expect(texts).toEqual(["slow "]);
    expect(next.value.status).toBe("aborted");
  });

  it("redacts secrets everywhere it records, and writes the file 0600 from the start", async () => {
    const key = "sk-live-abcdef123456";
    const scripted = tempFile(
      "secret.yaml",
      `turns:\n  - text: "key ${key}"\n    tool_calls: [{ id: c1, name: exec_command, arguments: { cmd: "curl -H ${key}" } }]\n  - error: { status: 500, message: "upstream saw ${key}" }\n`,
    );
    const file = join(mkdtempSync(join(tmpdir(), "penguin-rec-")), "secret.yaml");
    const recording = createRecordingModel(createReplayModel({ file: scripted }), file, { secrets: [key] });
    expect(loadCassette(file).turns).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await playAll(recording, 2);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(key);
    expect(text.split(REDACTED_MARKER)).toHaveLength(4);
  });

  it("a recording that can no longer be written fails the request permanently with the reason", async () => {
    const scripted = tempFile("ok.yaml", `turns:\n  - text: "fine"\n`);
    const file = join(mkdtempSync(join(tmpdir(), "penguin-rec-")), "c.yaml");
    const recording = createRecordingModel(createReplayModel({ file: scripted }), file);
    // Something else took the path: the atomic rename cannot replace a folder.
    rmSync(file);
    mkdirSync(file);
    const result = await collect(recording, request());
    expect(result.outcome).toMatchObject({ status: "failed", permanent: true });
    expect(result.outcome.errorMessage).toMatch(/^recording the model turn to .*c\.yaml failed \(E[A-Z]+/);
    // What streamed before the write still reached the caller.
    expect(result.complete).toEqual([expect.objectContaining({ type: "text", text: "fine" })]);
  });
});
