#!/usr/bin/env node
// Server load benchmark: N sessions stream a task at once from fake-llm, each watched by one SSE
// client. Reports events per second delivered to the clients and the delay from a model chunk
// (the envelope timestamp the harness stamps when the chunk arrives from the model) to the SSE
// client that parses it. Loopback only; the server runs in a child process so the clients and the
// fake model do not share its event loop. Run after `pnpm turbo run build --filter=@penguin/server`:
//
//   node packages/server/bench/load.mjs [--sessions 50] [--chars 2000] [--chunk 16] [--delay-ms 5] [--json]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HERE = fileURLToPath(new URL(".", import.meta.url));
/** The whole run stops by itself after this long, whatever happens. */
const HARD_LIMIT_MS = 180_000;

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "50" },
    chars: { type: "string", default: "2000" },
    chunk: { type: "string", default: "16" },
    "delay-ms": { type: "string", default: "5" },
    json: { type: "boolean", default: false },
    serve: { type: "string" },
  },
});

if (values.serve !== undefined) {
  await serve(JSON.parse(values.serve));
} else {
  await main();
}

/** Child process: the server under test; prints `{url, password}` on stdout and runs until killed. */
async function serve({ dataRoot, workspaceRoot }) {
  const { startServer } = await import(join(HERE, "..", "dist", "index.js"));
  const { default: pino } = await import("pino");
  const server = await startServer({
    dataRoot,
    port: 0,
    workspaceRoots: [workspaceRoot],
    logger: pino({ level: "silent" }),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, password: server.initialAdmin.password })}\n`);
  process.on("SIGTERM", async () => {
    await server.close();
    process.exit(0);
  });
}

async function main() {
  const sessions = Number(values.sessions);
  const chars = Number(values.chars);
  const chunkSize = Number(values.chunk);
  const chunkDelayMs = Number(values["delay-ms"]);
  const hardStop = setTimeout(() => {
    process.stderr.write(`load benchmark: gave up after ${HARD_LIMIT_MS} ms\n`);
    process.exit(1);
  }, HARD_LIMIT_MS);
  hardStop.unref();

  const { startFakeLlm } = await import("@penguin/fake-llm");
  const { createParser } = await import("eventsource-parser");
  const { saveProjectConfig, ProjectConfigSchema } = await import("@penguin/state");

  const root = mkdtempSync(join(tmpdir(), "penguin-server-load-"));
  const dataRoot = join(root, "data");
  const workspaceRoot = join(root, "workspaces");
  mkdirSync(join(workspaceRoot, "w"), { recursive: true });
  const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(chars / 27)).slice(0, chars);
  const llm = await startFakeLlm({
    apiKey: "sk-bench",
    script: Array.from({ length: sessions }, () => ({
      text,
      chunk_size: chunkSize,
      chunk_delay_ms: chunkDelayMs,
      usage: { input_tokens: 100, output_tokens: 50 },
    })),
  });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      default_model: "fake/fake-model",
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-bench",
        },
      ],
    }),
  );

  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), "--serve", JSON.stringify({ dataRoot, workspaceRoot })],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await llm.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const { url, password } = await new Promise((resolve, reject) => {
      let buffered = "";
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        const line = buffered.split("\n")[0];
        if (buffered.includes("\n")) resolve(JSON.parse(line));
      });
      child.once("exit", (code) => reject(new Error(`the server exited early (${code})`)));
    });

    const token = await bearerToken(url, password);
    const api = (path, init = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
      });

    const ids = [];
    for (let i = 0; i < sessions; i++) {
      const response = await api("/api/sessions", {
        method: "POST",
        body: JSON.stringify({ workspace: join(workspaceRoot, "w"), approval_mode: "allow-all" }),
      });
      if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
      ids.push((await response.json()).session.id);
    }

    const delays = [];
    let events = 0;
    let bytes = 0;
    const watchers = ids.map((id) =>
      watch(`${url}/api/sessions/${id}/stream`, token, createParser, (event, size) => {
        events += 1;
        bytes += size;
        if (event.event !== undefined) return false;
        const message = JSON.parse(event.data);
        if (message.type === "model_msg" && message.payload.type === "partial_text") {
          delays.push(Date.now() - Date.parse(message.timestamp));
        }
        return message.type === "event_msg" && message.payload.type === "task_end";
      }),
    );
    await Promise.all(watchers.map((watcher) => watcher.ready));

    const started = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        const response = await api(`/api/sessions/${id}/tasks`, {
          method: "POST",
          body: JSON.stringify({ input: "Go" }),
        });
        if (response.status !== 202) throw new Error(`task: ${response.status} ${await response.text()}`);
      }),
    );
    await Promise.all(watchers.map((watcher) => watcher.done));
    const seconds = (performance.now() - started) / 1000;

    delays.sort((a, b) => a - b);
    const pick = (q) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))];
    const result = {
      sessions,
      chunks_per_task: Math.ceil(chars / chunkSize),
      chunk_delay_ms: chunkDelayMs,
      events,
      seconds: Number(seconds.toFixed(2)),
      events_per_second: Math.round(events / seconds),
      sse_mb: Number((bytes / 1e6).toFixed(1)),
      delay_p50_ms: pick(0.5),
      delay_p99_ms: pick(0.99),
      delay_max_ms: delays.at(-1),
    };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      process.stdout.write(
        [
          "| sessions | chunks/task | SSE events | wall time | events/s | chunk → SSE client p50 | p99 | max |",
          "|---:|---:|---:|---:|---:|---:|---:|---:|",
          `| ${result.sessions} | ${result.chunks_per_task} | ${result.events} | ${result.seconds} s | ${result.events_per_second} | ${result.delay_p50_ms} ms | ${result.delay_p99_ms} ms | ${result.delay_max_ms} ms |`,
          "",
        ].join("\n"),
      );
    }
    for (const watcher of watchers) watcher.close();
  } finally {
    await stop();
  }
}

async function bearerToken(url, initialPassword) {
  const post = (path, body, cookie) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  const login = await post("/api/auth/login", { username: "admin", password: initialPassword });
  const cookie = login.headers.getSetCookie()[0].split(";")[0];
  await post(
    "/api/auth/password",
    { current_password: initialPassword, new_password: "bench password 123" },
    cookie,
  );
  return (await (await post("/api/tokens", { name: "bench" }, cookie)).json()).token;
}

/** One SSE client: `ready` once connected, `done` when `onEvent` returns true (task_end). */
function watch(url, token, createParser, onEvent) {
  const abort = new AbortController();
  let markReady;
  const ready = new Promise((resolve) => (markReady = resolve));
  const done = (async () => {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    markReady();
    let finished = false;
    const parser = createParser({
      onEvent: (event) => {
        if (onEvent(event, event.data.length) === true) finished = true;
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (finished) break;
    }
  })();
  return { ready, done, close: () => abort.abort() };
}
