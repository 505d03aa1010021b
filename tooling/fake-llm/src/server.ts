import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelScript, ScriptTurn } from "@penguin/protocol";
import { anthropicMessages } from "./protocols/anthropic-messages.js";
import { DEFAULT_MODEL, modelListBody } from "./protocols/models.js";
import { openAiChat } from "./protocols/openai-chat.js";
import { openAiResponses } from "./protocols/openai-responses.js";
import type { ModelProtocol } from "./protocols/protocol.js";
import { anthropicErrorBody, defaultErrorMessage, openAiErrorBody } from "./provider-errors.js";
import { type RecordedRequest, RequestLog, type RequestOutcome } from "./request-log.js";
import { type ModelScriptInput, parseScript, type ScriptTurnInput } from "./script-loader.js";
import { playStream, untilClosed } from "./stream-player.js";
import { planTurn, type TurnPlan } from "./turn-plan.js";

/** Loopback only: the fake server is for tests and benchmarks on this machine. */
export const DEFAULT_HOST = "127.0.0.1";
/** Port 0: the OS picks a free port, so parallel test files never collide. */
export const DEFAULT_PORT = 0;

const PROTOCOLS: readonly ModelProtocol[] = [openAiChat, openAiResponses, anthropicMessages];
const MODELS_PATH = "/v1/models";

/** A whole script, its turns alone, or an already-validated script. */
export type FakeLlmScript = ModelScriptInput | ScriptTurnInput[] | ModelScript;

export interface FakeLlmOptions {
  /** The turns to play; without one, every model request finds the script exhausted. */
  script?: FakeLlmScript;
  host?: string;
  port?: number;
  /** When set, requests must carry it as `Authorization: Bearer <key>` or `x-api-key`. */
  apiKey?: string;
  /** Ids listed by `GET /v1/models` (default: `fake-model`). */
  models?: string[];
  /**
   * Answers a request with a turn the test picks from its body (a summary for a request that asks
   * for one, say) instead of the script's next turn; undefined plays the script. A picked turn
   * does not move the script's position. Its recorded `turnIndex` is null.
   */
  pick?: (body: Record<string, unknown>) => ScriptTurnInput | undefined;
  /** Called with each request as soon as the server has decided how to answer it. */
  onRequest?: (request: RecordedRequest) => void;
}

export interface FakeLlm {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Every request received so far, in arrival order (live: grows as requests arrive). */
  readonly requests: readonly RecordedRequest[];
  /** How many script turns have been consumed. */
  readonly turnsConsumed: number;
  /** Replaces the script and starts again from its first turn; recorded requests are kept. */
  setScript(script: FakeLlmScript): void;
  /** Resolves with the first `count` requests once they have arrived; rejects after a timeout. */
  waitForRequests(count: number, options?: { timeoutMs?: number }): Promise<RecordedRequest[]>;
  /** Stops listening and drops every open connection, stalled streams included. */
  close(): Promise<void>;
}

function toScript(input: FakeLlmScript): ModelScript {
  return Array.isArray(input) ? parseScript({ turns: input }) : parseScript(input);
}

function lowerCaseHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function isAuthorized(headers: Record<string, string>, apiKey: string): boolean {
  return headers.authorization === `Bearer ${apiKey}` || headers["x-api-key"] === apiKey;
}

/** Non-streamed answers fail too: a stall sends nothing, a cut half the body, malformed a broken body. */
async function answerComplete(
  res: ServerResponse,
  plan: TurnPlan,
  body: unknown,
  headers: Record<string, string>,
) {
  const text = JSON.stringify(body);
  const head = { "content-type": "application/json", ...headers };
  switch (plan.failure?.kind) {
    case "stall":
      await untilClosed(res);
      return;
    case "cut":
      res.writeHead(200, head);
      res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
      return;
    case "malformed":
      res.writeHead(200, head);
      res.end(text.slice(0, Math.floor(text.length / 2)));
      return;
    default:
      res.writeHead(200, head);
      res.end(text);
  }
}

function outcomeOf(turn: ScriptTurn): RequestOutcome {
  if (turn.error) return "scripted_error";
  if (turn.stall) return "stalled";
  if (turn.cut) return "cut";
  if (turn.malformed) return "malformed";
  return "answered";
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  let turns: ScriptTurn[] = options.script ? toScript(options.script).turns : [];
  let cursor = 0;
  const log = new RequestLog();
  const models = options.models ?? [DEFAULT_MODEL];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? "/", "http://fake-llm.invalid");
    const method = (req.method ?? "GET").toUpperCase();
    const headers = lowerCaseHeaders(req);
    const body = parseJson(rawBody);
    const index = log.entries.length;
    const protocol = method === "POST" ? PROTOCOLS.find((p) => p.path === url.pathname) : undefined;
    const isModelList = method === "GET" && url.pathname === MODELS_PATH;
    const replyHeaders = { "x-request-id": `req_fake_${index}`, "request-id": `req_fake_${index}` };
    // Paths that belong to no protocol answer in the shape the client's headers suggest.
    const errorBody =
      protocol?.errorBody ??
      (headers["anthropic-version"] !== undefined ? anthropicErrorBody : openAiErrorBody);

    const record = (outcome: RequestOutcome, turnIndex: number | null = null): void => {
      const entry: RecordedRequest = {
        index,
        method,
        path: url.pathname,
        query: url.search.replace(/^\?/, ""),
        headers,
        body,
        rawBody,
        protocol: protocol?.name ?? (isModelList ? "models" : null),
        stream: protocol !== undefined && isObject(body) && protocol.wantsStream(body),
        turnIndex,
        outcome,
      };
      log.add(entry);
      options.onRequest?.(entry);
    };
    const fail = (
      status: number,
      message: string,
      outcome: RequestOutcome,
      extra: Record<string, string> = {},
    ) => {
      record(outcome);
      sendJson(res, status, errorBody(status, message), { ...replyHeaders, ...extra });
    };

    if (!protocol && !isModelList) {
      const known = [...PROTOCOLS.map((p) => `POST ${p.path}`), `GET ${MODELS_PATH}`].join(", ");
      fail(404, `fake-llm: no route for ${method} ${url.pathname} (served: ${known})`, "not_found");
      return;
    }
    if (options.apiKey !== undefined && !isAuthorized(headers, options.apiKey)) {
      fail(
        401,
        "fake-llm: invalid API key (expected Authorization: Bearer <key> or x-api-key)",
        "unauthorized",
      );
      return;
    }
    if (!protocol) {
      record("answered");
      sendJson(res, 200, modelListBody(models, Math.floor(Date.now() / 1000)), replyHeaders);
      return;
    }
    if (!isObject(body)) {
      fail(
        400,
        `fake-llm: the request body is not a JSON object: ${JSON.stringify(rawBody.slice(0, 200))}`,
        "invalid_json",
      );
      return;
    }
    const picked = options.pick?.(body);
    if (picked === undefined && cursor >= turns.length) {
      const message =
        `fake-llm: script exhausted: request ${index} (${method} ${url.pathname}) arrived after all ` +
        `${turns.length} scripted turn(s) were consumed`;
      // The SDKs honour x-should-retry; retrying cannot help a script that has run out.
      fail(500, message, "script_exhausted", { "x-should-retry": "false" });
      return;
    }

    const turnIndex = picked === undefined ? cursor++ : null;
    const turn = picked === undefined ? turns[cursor - 1]! : parseScript({ turns: [picked] }).turns[0]!;
    record(outcomeOf(turn), turnIndex);
    if (turn.error) {
      const { status, message, retry_after: retryAfter } = turn.error;
      const extra: Record<string, string> =
        retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
      sendJson(res, status, errorBody(status, message ?? defaultErrorMessage(status)), {
        ...replyHeaders,
        ...extra,
      });
      return;
    }
    const plan = planTurn(turn, turnIndex ?? index, body);
    const context = {
      body,
      model: typeof body.model === "string" ? body.model : DEFAULT_MODEL,
      createdAt: Math.floor(Date.now() / 1000),
    };
    if (protocol.wantsStream(body)) {
      await playStream(res, protocol.streamFrames(plan, context), {
        headers: replyHeaders,
        chunkDelayMs: plan.chunkDelayMs,
        failure: plan.failure,
      });
    } else {
      await answerComplete(res, plan, protocol.completeBody(plan, context), replyHeaders);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the fake must show up in the test that hit it, not vanish.
      const message = `fake-llm internal error: ${error instanceof Error ? error.stack : String(error)}`;
      if (!res.headersSent) sendJson(res, 500, openAiErrorBody(500, message), {});
      else res.destroy();
    });
  });

  const host = options.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    requests: log.entries,
    get turnsConsumed() {
      return cursor;
    },
    setScript(script) {
      turns = toScript(script).turns;
      cursor = 0;
    },
    waitForRequests(count, waitOptions) {
      return log.waitFor(count, waitOptions?.timeoutMs);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
