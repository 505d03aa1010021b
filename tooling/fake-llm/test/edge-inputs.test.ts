import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";
import { ALL_DRIVERS } from "./drivers.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(() => llm.close());

describe.each(ALL_DRIVERS)("%s with unusual answers", (_name, makeDriver) => {
  it("streams a 2 MB answer intact (the server waits for the socket to drain)", async () => {
    const big = "0123456789abcdef\n".repeat(2 * 1024 * 64);
    llm.setScript([{ text: big, chunk_size: 4096 }]);
    const deltas: string[] = [];
    const text = await makeDriver(llm).stream(deltas);
    expect(text.length).toBe(big.length);
    expect(text === big).toBe(true);
    expect(deltas.length).toBe(Math.ceil(big.length / 4096));
  });

  it("keeps multi-byte characters whole across deltas", async () => {
    const text = "Pingüino 🐧 ペンギン — ok";
    llm.setScript([{ text, chunk_size: 3 }]);
    const deltas: string[] = [];
    expect(await makeDriver(llm).stream(deltas)).toBe(text);
    expect(deltas.every((delta) => !/[\uD800-\uDBFF]$/.test(delta))).toBe(true);
  });
});

describe("scripted malformed tool arguments", () => {
  it("are streamed verbatim so a harness sees exactly what a broken model sent", async () => {
    llm.setScript([{ tool_calls: [{ name: "read_file", arguments: '{"path": "a.txt",' }], chunk_size: 4 }]);
    const client = new OpenAI({ baseURL: `${llm.url}/v1`, apiKey: "k", maxRetries: 0 });
    const completion = await client.chat.completions
      .stream({ model: "m", messages: [{ role: "user", content: "q" }] })
      .finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.arguments).toBe('{"path": "a.txt",');
  });
});
