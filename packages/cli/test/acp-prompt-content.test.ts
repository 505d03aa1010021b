import { pathToFileURL } from "node:url";
import { afterEach, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

// What an editor puts in a prompt besides text (advertised in promptCapabilities): images reach
// the model as image inputs, embedded resources as their text, links as a short reference.

const API_KEY = "sk-test-penguin-acp-content-0123456789";
/** A 1x1 red PNG. */
const RED_PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const serve = fakeOpenAiPerTest(API_KEY);
let acp: AcpChild | undefined;
afterEach(async () => {
  await acp?.close();
  acp = undefined;
});

/** A session of a fresh `penguin acp` (the fake OpenAI model has vision). */
async function session(script: Parameters<typeof serve>[0]) {
  const served = await serve(script);
  acp = new AcpChild(["--model", "openai/fake-model"], { ...served.env, HOME: tempDir("home") });
  await acp.initialize();
  const { sessionId } = await acp.agent.request("session/new", { cwd: tempDir("ws"), mcpServers: [] });
  return { client: acp, sessionId, llm: served.llm };
}

type ChatPart = { type: string; text?: string; image_url?: { url: string } };
type ChatMessage = { role: string; content: string | ChatPart[] };

/** The user messages of the model's first request, as the fake server received them. */
function userMessages(body: unknown): ChatMessage[] {
  return (body as { messages: ChatMessage[] }).messages.filter((m) => m.role === "user");
}

const textOf = (message: ChatMessage): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.map((part) => part.text ?? "").join("");

test("an image block reaches the model as an image input (a data URL), beside the prompt's text", async () => {
  const { client, sessionId, llm } = await session([{ text: "A red pixel." }]);
  const result = await client.agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "What is in this picture?" },
      { type: "image", mimeType: "image/png", data: RED_PIXEL },
    ],
  });
  expect(result.stopReason).toBe("end_turn");
  const users = userMessages(llm.requests[0].body);
  expect(users.map(textOf).join("\n")).toContain("What is in this picture?");
  const images = users.flatMap((m) =>
    typeof m.content === "string" ? [] : m.content.filter((part) => part.type === "image_url"),
  );
  expect(images.map((part) => part.image_url?.url)).toEqual([`data:image/png;base64,${RED_PIXEL}`]);
});

test("an embedded text resource reaches the model as its contents in a fence; a link as a short reference", async () => {
  const { client, sessionId, llm } = await session([{ text: "Read." }]);
  const notes = "/project/notes.md";
  const uri = pathToFileURL(notes).href;
  const text = "# Notes\nuse ```fences``` here\n";
  await client.agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "Summarise these." },
      { type: "resource", resource: { uri, text, mimeType: "text/markdown" } },
      { type: "resource_link", uri: pathToFileURL("/project/src/app.ts").href, name: "app.ts" },
      { type: "resource_link", uri: "https://example.test/spec", name: "the spec" },
    ],
  });
  const sent = userMessages(llm.requests[0].body).map(textOf).join("\n");
  // The fence is longer than the backticks inside, so the text cannot end it early.
  expect(sent).toContain(`Summarise these.\nContents of ${uri}:\n\`\`\`\`\n${text}\`\`\`\`\n`);
  expect(sent).toContain("[file: /project/src/app.ts]");
  expect(sent).toContain("[resource the spec: https://example.test/spec]");
});

test("an image of a type the model cannot take and an audio block are refused as invalid params", async () => {
  const { client, sessionId, llm } = await session([{ text: "Never sent." }]);
  const tiff = client.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "image", mimeType: "image/tiff", data: "AAAA" }],
  });
  await expect(tiff).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining(
      "an image of type image/tiff is not supported: send image/png, image/jpeg, image/gif, image/webp",
    ),
  });
  const audio = client.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }],
  });
  await expect(audio).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining("prompt blocks of type audio are not supported"),
  });
  expect(llm.requests).toHaveLength(0);
  // The session is still usable.
  const ok = await client.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "hi" }],
  });
  expect(ok.stopReason).toBe("end_turn");
});
