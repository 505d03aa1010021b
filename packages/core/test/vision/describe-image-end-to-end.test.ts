import { mkdirSync, writeFileSync } from "node:fs";
import { crc32, deflateSync } from "node:zlib";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { type ProjectConfigInput, saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { NO_VISION_MODEL_MESSAGE } from "../../src/tools/describe-image/describe-image.js";
import { chatMessages, collect, kind, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const servers: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

/** A real PNG file: a `size`×`size` red square (8-bit RGB, one zlib stream). */
function redSquarePng(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3, Buffer.from([255, 0, 0]))]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The session model (text-only unless `vision`) on `env.llm`, plus whatever else the test adds. */
async function agentWith(env: Env, extra: Partial<ProjectConfigInput>, vision = false) {
  const models = [
    {
      provider: "fake",
      api: "openai" as const,
      model_id: "fake-model",
      base_url: `${env.llm.url}/v1`,
      api_key: "sk-test",
      vision,
    },
    ...(extra.models ?? []),
  ];
  await saveProjectConfig(env.dataRoot, ProjectConfigSchema.parse({ ...extra, models }));
  return createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
}

const describeCall = (prompt?: string) => ({
  id: "call_look",
  name: "describe_image",
  arguments: { source: "pics/square.png", ...(prompt ? { prompt } : {}) },
});

function outputOf(messages: OmniMessage[], id: string): string {
  const output = messages.find(
    (m) => kind(m) === "tool_call_output" && (m.payload as { tool_call_id: string }).tool_call_id === id,
  );
  return (output?.payload as { output?: string } | undefined)?.output ?? "(no output)";
}

describe("describe_image forwards the image to the project's vision model (fake-llm over HTTP)", () => {
  it("a text-only session asks the vision model once, with the image as a data URL and the prompt; its answer is the tool output", async () => {
    const env = await setup([
      { tool_calls: [describeCall("What colour is the square?")] },
      { text: "It is red." },
    ]);
    envs.push(env);
    const visionLlm = await startFakeLlm({ script: [{ text: "A solid red square." }], apiKey: "sk-vision" });
    servers.push(visionLlm);
    const agent = await agentWith(env, {
      models: [
        {
          provider: "eyes",
          api: "openai",
          model_id: "vision-model",
          base_url: `${visionLlm.url}/v1`,
          api_key: "sk-vision",
          vision: true,
        },
      ],
      vision_model: "eyes/vision-model",
    });
    const png = redSquarePng(4);
    mkdirSync(`${env.workspaceDir}/pics`);
    writeFileSync(`${env.workspaceDir}/pics/square.png`, png);

    const session = await agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const names = session.tools.map((t) => t.name);
    expect(names).toContain("describe_image");
    expect(names).not.toContain("read_image");
    const run = await collect(session.run("Describe pics/square.png.", { approve: allowAll }));
    await session.dispose();

    expect(run.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(outputOf(run, "call_look")).toContain("A solid red square.");
    // The session model read the vision model's answer as the tool result.
    const tool = chatMessages(env.llm, 1).find((m) => m.role === "tool");
    expect(String(tool?.content)).toContain("A solid red square.");

    // The vision model got one request: the image as a data URL and the prompt, no tools.
    expect(visionLlm.requests).toHaveLength(1);
    const body = visionLlm.requests[0].body as {
      messages: { role: string; content: unknown }[];
      tools?: unknown;
    };
    expect(body.tools).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
        { type: "text", text: "What colour is the square?" },
      ],
    });
  });

  it("a vision session gets read_image and no describe_image", async () => {
    const env = await setup([{ text: "unused" }]);
    envs.push(env);
    const agent = await agentWith(env, {}, true);
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const names = session.tools.map((t) => t.name);
    await session.dispose();
    expect(names).toContain("read_image");
    expect(names).not.toContain("describe_image");
  });

  it("without a vision model, describe_image tells the model how the user configures one", async () => {
    const env = await setup([{ tool_calls: [describeCall()] }, { text: "I cannot see it." }]);
    envs.push(env);
    writeFileSync(`${env.workspaceDir}/square.png`, redSquarePng(2));
    const agent = await agentWith(env, {});
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const run = await collect(session.run("Look at it.", { approve: allowAll }));
    await session.dispose();
    expect(outputOf(run, "call_look")).toContain(NO_VISION_MODEL_MESSAGE);
    expect(NO_VISION_MODEL_MESSAGE).toContain("penguin config vision-model <provider/model>");
  });

  it("a vision model that cannot be used fails the call with the reason, and the session goes on", async () => {
    const env = await setup([{ tool_calls: [describeCall()] }, { text: "The vision model is not set up." }]);
    envs.push(env);
    mkdirSync(`${env.workspaceDir}/pics`);
    writeFileSync(`${env.workspaceDir}/pics/square.png`, redSquarePng(2));
    const agent = await agentWith(env, {
      models: [
        {
          provider: "keyless",
          api: "openai",
          model_id: "eyes",
          base_url: "https://vision.example.invalid/v1",
          vision: true,
        },
      ],
      vision_model: "keyless/eyes",
    });
    const session = await agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const run = await collect(session.run("Look.", { approve: allowAll }));
    await session.dispose();
    const output = outputOf(run, "call_look");
    expect(output).toContain("The vision model could not describe");
    expect(output).toContain("no API key for provider");
    expect(output).toContain("KEYLESS_API_KEY");
    expect(run.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
  });
});
