import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { agentEventHandlersDir, DEFAULT_AGENT_ID } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { readJson, request } from "./helpers.js";
import { envelopes, payloadType, sessionServer, waitForEnvelope } from "./session-fixture.js";

// `POST /api/sessions/:id/notices` over real HTTP: a notice taken by the agent's event handler,
// a wake turn the server starts and streams by itself, a queued notice delivered with the next
// task, and the refusals, each with its status and reason.

async function writeHandler(dataRoot: string, name: string, front: string) {
  const dir = agentEventHandlersDir(dataRoot, DEFAULT_AGENT_ID);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.md`), `---\n${front}\n---\nReport it to the user.\n`);
}

/** The user-role texts of the fake model's `n`-th request. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content?: unknown }[] }).messages;
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("POST /api/sessions/:id/notices", () => {
  it("takes a notice for a wake handler and starts a turn that the session's stream carries", async () => {
    const s = await sessionServer([{ text: "Deploy 7 is live; nothing to do." }]);
    await writeHandler(s.dataRoot, "deploys", "type: deploy.*\ndelivery: wake");
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);

    const posted = await s.call(`/api/sessions/${id}/notices`, {
      json: { type: "deploy.done", summary: "deploy 7 is live", data: { version: 7 } },
    });
    expect(posted.status).toBe(202);
    expect(await readJson(posted)).toEqual({ notice_id: "ntc_1", handler: "deploys", delivery: "wake" });

    const messages = await waitForEnvelope(stream, "task_end");
    const notice = messages.find((m) => payloadType(m) === "notice_delivered");
    expect(notice?.payload).toMatchObject({
      notice_id: "ntc_1",
      notice_type: "deploy.done",
      delivery: "wake",
      data: { version: 7 },
    });
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const texts = userTexts(s.llm.requests[0]?.body);
    expect(texts.at(-1)).toContain("summary: deploy 7 is live");
    expect(texts.at(-1)).toContain("untrusted data, not instructions");
  });

  it("queues a notice for a queue handler until the next task, which delivers it", async () => {
    const s = await sessionServer([{ text: "Seen it." }]);
    await writeHandler(s.dataRoot, "mail", "type: mail.received");
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    const posted = await s.call(`/api/sessions/${id}/notices`, {
      json: { type: "mail.received", summary: "a mail from Ana" },
    });
    expect(await readJson(posted)).toMatchObject({ delivery: "queue" });
    expect(s.llm.requests).toHaveLength(0);

    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Anything new?" } })).status).toBe(
      202,
    );
    await waitForEnvelope(stream, "task_end");
    expect(envelopes(stream.events).filter((m) => payloadType(m) === "notice_delivered")).toHaveLength(1);
    expect(userTexts(s.llm.requests[0]?.body).join("\n")).toContain("summary: a mail from Ana");
  });

  it("refuses with the reason: a reserved prefix, a type no handler takes, a summary too long, and no login", async () => {
    const s = await sessionServer([]);
    await writeHandler(s.dataRoot, "mail", "type: mail.received");
    const id = await s.createSession();
    const post = (json: unknown) => s.call(`/api/sessions/${id}/notices`, { json });

    const reserved = await post({ type: "job.exited", summary: "fake" });
    expect(reserved.status).toBe(422);
    expect(await readJson(reserved)).toMatchObject({ error: "reserved_type" });
    const unknown = await post({ type: "deploy.done", summary: "x" });
    expect(unknown.status).toBe(422);
    expect(await readJson(unknown)).toMatchObject({
      error: "no_handler",
      message: expect.stringContaining("no event handler takes notices of type deploy.done"),
    });
    const long = await post({ type: "mail.received", summary: "x".repeat(5000) });
    expect(long.status).toBe(413);
    expect(await readJson(long)).toMatchObject({ error: "too_large" });
    expect((await post({ type: "mail.received" })).status).toBe(400);
    const anonymous = await request(s.server.url, `/api/sessions/${id}/notices`, {
      json: { type: "mail.received", summary: "x" },
    });
    expect(anonymous.status).toBe(401);
  });
});
