import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type FakeLlm, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import type { EventSourceMessage } from "eventsource-parser";
import { afterEach } from "vitest";
import type { RunningServer, StartServerOptions } from "../src/index.js";
import { adminSession, readJson, request, startTestServer, tempDataRoot } from "./helpers.js";
import { SseClient } from "./sse-client.js";

export const MODEL = "fake/fake-model";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

export interface SessionServer {
  server: RunningServer;
  llm: FakeLlm;
  dataRoot: string;
  /** Inside the server's only workspace root. */
  workspace: string;
  /** The admin's session cookie. */
  cookie: string;
  /** `request` with the admin's cookie. */
  call(path: string, options?: { method?: string; json?: unknown; cookie?: string }): Promise<Response>;
  /** Creates a session in `workspace` and returns its id. */
  createSession(body?: Record<string, unknown>, cookie?: string): Promise<string>;
  /** Opens the session's SSE stream; closed after the test. */
  stream(sessionId: string, lastEventId?: string, cookie?: string): Promise<SseClient>;
}

/**
 * A real server over a real SQLite file in a fresh data root whose project config points the
 * model `fake/fake-model` at fake-llm (OpenAI Chat Completions over real HTTP), and one
 * workspace root holding one workspace folder.
 */
export async function sessionServer(
  script: FakeLlmScript,
  options: StartServerOptions = {},
): Promise<SessionServer> {
  const dataRoot = await tempDataRoot();
  // Workspaces live outside the data root: the server refuses any inside it.
  const root = join(await tempDataRoot(), "workspaces");
  const workspace = join(root, "project");
  await mkdir(workspace, { recursive: true });
  const llm = await startFakeLlm({ script, apiKey: "sk-test" });
  cleanups.push(() => llm.close());
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      default_model: MODEL,
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-test",
          context_window: 100_000,
          prices: { input_per_mtok: 2, output_per_mtok: 10 },
        },
      ],
    }),
  );
  const server = await startTestServer({ dataRoot, workspaceRoots: [root], ...options });
  const cookie = await adminSession(server);
  const call: SessionServer["call"] = (path, init = {}) =>
    request(server.url, path, { cookie: init.cookie ?? cookie, method: init.method, json: init.json });
  return {
    server,
    llm,
    dataRoot,
    workspace,
    cookie,
    call,
    async createSession(body = {}, as = cookie) {
      const response = await call("/api/sessions", { json: { workspace, ...body }, cookie: as });
      if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
      return (await readJson<{ session: { id: string } }>(response)).session.id;
    },
    async stream(sessionId, lastEventId, as = cookie) {
      const client = await SseClient.connect(`${server.url}/api/sessions/${sessionId}/stream`, {
        lastEventId,
        cookie: as,
      });
      cleanups.push(() => client.close());
      return client;
    },
  };
}

/** The envelopes among a stream's events (the unnamed ones). */
export function envelopes(events: readonly EventSourceMessage[]): OmniMessage[] {
  return events
    .filter((event) => event.event === undefined)
    .map((event) => JSON.parse(event.data) as OmniMessage);
}

/** The `server_event`s of a stream, parsed. */
export function serverEvents(
  events: readonly EventSourceMessage[],
): { type: string; [key: string]: unknown }[] {
  return events.filter((event) => event.event === "server_event").map((event) => JSON.parse(event.data));
}

export const payloadType = (message: OmniMessage) =>
  message.type === "session_meta" ? "session_meta" : (message.payload as { type: string }).type;

/** Waits until the stream has carried `count` envelopes with this payload type. */
export async function waitForEnvelope(client: SseClient, type: string, count = 1): Promise<OmniMessage[]> {
  await client.until((c) => envelopes(c.events).filter((m) => payloadType(m) === type).length >= count);
  return envelopes(client.events);
}

/** Waits until the stream has carried `count` server events of this type. */
export async function waitForServerEvent(client: SseClient, type: string, count = 1) {
  await client.until((c) => serverEvents(c.events).filter((e) => e.type === type).length >= count);
  return serverEvents(client.events).filter((e) => e.type === type);
}

/** A script turn that runs one command through exec_command. */
export function execTurn(cmd: string, id?: string, yieldTimeMs = 30_000) {
  return {
    tool_calls: [
      {
        ...(id ? { id } : {}),
        name: "exec_command",
        arguments: { description: `run ${cmd}`, cmd, yield_time_ms: yieldTimeMs },
      },
    ],
  };
}

/** Polls `check` (a real condition on real state, not a timing assertion) until it holds. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Whether a process id is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
