import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterEach, expect, test } from "vitest";
import { CLI_BIN, tempDir } from "./helpers.js";

// A client that writes garbage: the raw stream, below any SDK, so the bytes are exactly these.
let child: ReturnType<typeof spawn> | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

/** `penguin acp` with these arguments and extra environment, spoken to line by line, raw. */
function rawAcp(args: string[], env: Record<string, string>) {
  child = spawn(process.execPath, [CLI_BIN, "acp", ...args], {
    env: { ...process.env, NO_COLOR: "1", PENGUIN_HOME: tempDir("data"), HOME: tempDir("home"), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdin = child.stdin;
  const stdout = child.stdout;
  if (!stdin || !stdout) throw new Error("no pipes");
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
  return { stdin, next };
}

test("malformed JSON and an unknown method are answered with JSON-RPC errors, and the agent goes on serving", async () => {
  const { stdin, next } = rawAcp(["--model", "openai/fake-model"], {
    OPENAI_API_KEY: "sk-test-penguin-acp-errors-0123456789",
  });

  stdin.write("{ this is not json\n");
  expect(await next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });

  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`,
  );
  expect(await next()).toMatchObject({ id: 1, result: { protocolVersion: 1 } });

  stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/fly", params: {} })}\n`);
  expect(await next()).toMatchObject({
    id: 2,
    error: { code: -32601, message: expect.stringContaining("session/fly") },
  });

  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "relative/dir" } })}\n`,
  );
  expect(await next()).toMatchObject({ id: 3, error: { code: -32602 } });

  // Still serving after all of it.
  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/new", params: { cwd: tempDir("ws"), mcpServers: [] } })}\n`,
  );
  expect(await next()).toMatchObject({ id: 4, result: { sessionId: expect.any(String) } });
  stdin.end();
  const code = await new Promise((resolve) => child?.once("exit", resolve));
  expect(code).toBe(0);
});

test("a session that cannot start (no model configured) is answered with the reason, not an internal error", async () => {
  const { stdin, next } = rawAcp([], { PENGUIN_MODEL: "" });
  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`,
  );
  expect(await next()).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
  stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: tempDir("ws"), mcpServers: [] } })}\n`,
  );
  expect(await next()).toMatchObject({
    id: 2,
    error: { message: expect.stringMatching(/^cannot start a session: no model given/) },
  });
});
