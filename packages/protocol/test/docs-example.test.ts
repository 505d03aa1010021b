import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { type OmniMessage, PartialAggregator, parseEnvelopeLine } from "../src/index.js";

// docs/protocol.md promises an example stream that follows the protocol: keep it honest.

const doc = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");
const exampleBlock = doc.split("## Example stream")[1]?.split("```jsonl\n")[1]?.split("```")[0] ?? "";
const lines = exampleBlock.split("\n").filter((l) => l.trim() !== "");

describe("docs/protocol.md example stream", () => {
  test("every line is a valid envelope", () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      const r = parseEnvelopeLine(line);
      expect(r.ok ? "ok" : `${r.error.path}: ${r.error.message} in ${line}`).toBe("ok");
    }
  });

  test("each partial stream is followed by its complete message, which the deltas rebuild", () => {
    const messages = lines.map((l) => JSON.parse(l) as OmniMessage);
    const agg = new PartialAggregator();
    let built = 0;
    for (const m of messages) {
      if (m.type === "model_msg" && !m.payload.type.startsWith("partial_")) {
        // Only the user's own text arrives without a stream.
        const fromUser = m.payload.type === "text" && m.payload.role === "user";
        expect(agg.wasStreamed(m)).toBe(!fromUser);
      }
      built += agg.push(m).length;
    }
    expect(built).toBe(3);
    expect(agg.snapshot()).toEqual([]);
  });
});
