import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, kind, MODEL, RETRY_FAST, setup } from "./fixtures.js";

const start = cleanedUpAfterEach(setup);

describe("the context window and images (SDK, fake-llm over HTTP)", () => {
  it("a 1 MB image attached to a vision model's input fits a 100k window: it is sent, not stopped as 333k tokens", async () => {
    const env = await start([{ text: "A grey square." }], { context_window: 100_000, vision: true });
    writeFileSync(join(env.workspaceDir, "big.png"), Buffer.alloc(1_000_000, 1));
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(
      session.run({ text: "What is this?", images: ["big.png"] }, { approve: allowAll }),
    );
    await session.dispose();
    expect(messages.some((m) => kind(m) === "limit_reached")).toBe(false);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(env.llm.requests).toHaveLength(1);
    expect(JSON.stringify(env.llm.requests[0].body)).toContain("data:image/png;base64,");
  });
});
