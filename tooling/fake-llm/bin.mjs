#!/usr/bin/env node
// fake-llm CLI: serves a scripted fake model over HTTP until SIGINT/SIGTERM.
//   node tooling/fake-llm/bin.mjs --script file.yaml [--port N] [--host 127.0.0.1] [--api-key KEY]
// Prints one line "fake-llm listening on <url>" to stdout once it accepts requests, and one line
// per request to stderr.
import { parseArgs } from "node:util";
import { DEFAULT_HOST, loadScript, startFakeLlm } from "./dist/index.js";

const usage = "usage: fake-llm --script <file.yaml> [--port N] [--host 127.0.0.1] [--api-key KEY]";

function fail(message) {
  process.stderr.write(`fake-llm: ${message}\n${usage}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      script: { type: "string" },
      port: { type: "string", default: "0" },
      host: { type: "string", default: DEFAULT_HOST },
      "api-key": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  }).values;
} catch (error) {
  fail(error.message);
}
if (args.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (!args.script) fail("--script is required");
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0-65535, got ${args.port}`);

let script;
try {
  script = loadScript(args.script);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const server = await startFakeLlm({
  script,
  port,
  host: args.host,
  apiKey: args["api-key"],
  onRequest: (r) => {
    const turn = r.turnIndex === null ? "no turn" : `turn ${r.turnIndex}`;
    process.stderr.write(`fake-llm: ${r.method} ${r.path} -> ${r.outcome} (${turn})\n`);
  },
});
process.stdout.write(`fake-llm listening on ${server.url}\n`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    server.close().then(() => process.exit(0));
  });
}
