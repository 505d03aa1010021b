import { type OmniMessage, userText } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { estimateContextTokens, MIN_REPLY_TOKENS } from "../../src/engine/limits.js";
import type { ModelMessage } from "../../src/engine/types.js";
import { ESTIMATED_IMAGE_TOKENS } from "../../src/models/usage.js";
import { createTestSession, eventsOf, testModel } from "./harness.js";

const sessions: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.dispose()));
});

const INPUT = "y".repeat(4000);

/** A session whose context window leaves `room` tokens beside its first request. */
function sessionWithRoom(room: number, maxOutputTokens: number | undefined) {
  const model = testModel([{ text: "answered" }]);
  const probe = createTestSession(model.adapter);
  sessions.push(probe);
  const estimate = estimateContextTokens(
    "You are a test.",
    [userText(INPUT, { sender: "user" }) as ModelMessage],
    probe.environment.toolSpecs(),
  );
  const session = createTestSession(model.adapter, { contextWindow: estimate + room, maxOutputTokens });
  sessions.push(session);
  return { session, requests: model.requests, estimate };
}

describe("the context-window stop", () => {
  it("stops before a request that would leave the reply less than its minimum (the provider would refuse it)", async () => {
    const { session, requests, estimate } = sessionWithRoom(MIN_REPLY_TOKENS - 1, 8_192);
    const run = await session.run(INPUT, allowAll);
    expect(requests).toHaveLength(0);
    expect(eventsOf(run.messages, "limit_reached")[0]).toMatchObject({
      limit: "context_window",
      used: estimate,
      max: estimate + MIN_REPLY_TOKENS - 1,
    });
    expect(run.outcome.message).toContain(`room for a reply of ${MIN_REPLY_TOKENS} tokens`);
  });

  it("sends a request that leaves exactly the minimum reply, asking for that much", async () => {
    const { session, requests } = sessionWithRoom(MIN_REPLY_TOKENS, 8_192);
    const run = await session.run(INPUT, allowAll);
    expect(run.outcome.status).toBe("completed");
    expect(requests[0].maxTokens).toBe(MIN_REPLY_TOKENS);
  });

  it("a configured max_tokens below the minimum is the least reply: it needs only that much room", async () => {
    const fits = sessionWithRoom(300, 300);
    expect((await fits.session.run(INPUT, allowAll)).outcome.status).toBe("completed");
    expect(fits.requests[0].maxTokens).toBe(300);
    const tight = sessionWithRoom(299, 300);
    expect((await tight.session.run(INPUT, allowAll)).outcome.message).toContain("reply of 300 tokens");
    expect(tight.requests).toHaveLength(0);
  });

  it("counts an image at a fixed cost, not its base64 at four characters a token", () => {
    const png = Buffer.alloc(1_000_000, 7).toString("base64");
    const image = (payload: Record<string, unknown>) =>
      ({
        timestamp: "",
        type: "model_msg",
        payload: { role: "user", ...payload },
      }) as OmniMessage as ModelMessage;
    const base = estimateContextTokens("", [image({ type: "text", text: "look" })], []);
    const withImages = estimateContextTokens(
      "",
      [
        image({ type: "text", text: "look" }),
        image({ type: "image_url", image_url: `data:image/png;base64,${png}` }),
        image({ type: "inline_data", data: png, mime_type: "image/png" }),
        image({ type: "tool_call_output", tool_call_id: "c", output: "two", images: [png, png] }),
      ],
      [],
    );
    // Four images; the rest is a few dozen characters of JSON.
    expect(withImages - base).toBeGreaterThanOrEqual(4 * ESTIMATED_IMAGE_TOKENS);
    expect(withImages - base).toBeLessThan(4 * ESTIMATED_IMAGE_TOKENS + 100);
  });
});
