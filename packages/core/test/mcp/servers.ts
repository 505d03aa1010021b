import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import type { McpServer } from "@penguin/state";
import { TEST_SERVER } from "./support.js";

// The MCP server programs the shared suite runs against, each over stdio, streamable HTTP and
// SSE: the project's own test server (fixtures/test-server.mjs) and the official reference server
// `@modelcontextprotocol/server-everything`. The remote ones run as child processes on a free
// loopback port, so a test can kill one mid-call and start it again on the same port.

export type Transport = "stdio" | "http" | "sse";
export const TRANSPORTS: readonly Transport[] = ["stdio", "http", "sse"];

/** A tool call the suite makes, and the text its answer contains. */
export interface SuiteCall {
  tool: string;
  args: Record<string, unknown>;
  answer: string;
}

export interface ServerProgram {
  /** How test names call it. */
  label: string;
  /** The server's name in `tools.mcpServers` (its tools are `mcp__<name>__<tool>`). */
  name: string;
  /** A read-only tool (readOnlyHint). */
  readOnlyCall: SuiteCall;
  /** A read-only tool that keeps the call open long enough to kill the server under it. */
  slowCall: Omit<SuiteCall, "answer">;
  /** The program's arguments for a transport. */
  args(transport: Transport): string[];
  /** The path of its endpoint for a remote transport. */
  path(transport: Exclude<Transport, "stdio">): string;
}

const require = createRequire(import.meta.url);
/** The reference server's entry point, from the pinned devDependency. */
export const EVERYTHING_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

export const PROJECT_SERVER: ServerProgram = {
  label: "the project's test server",
  name: "project",
  readOnlyCall: { tool: "lookup", args: { key: "alpha" }, answer: "value of alpha" },
  slowCall: { tool: "hang", args: {} },
  args: (transport) => [TEST_SERVER, ...(transport === "stdio" ? [] : [`--${transport}`])],
  path: (transport) => (transport === "http" ? "/mcp" : "/sse"),
};

export const REFERENCE_SERVER: ServerProgram = {
  label: "the reference server-everything",
  name: "everything",
  readOnlyCall: { tool: "echo", args: { message: "hello penguin" }, answer: "Echo: hello penguin" },
  slowCall: { tool: "trigger-long-running-operation", args: { duration: 60, steps: 60 } },
  args: (transport) => [
    EVERYTHING_SERVER,
    transport === "stdio" ? "stdio" : transport === "http" ? "streamableHttp" : "sse",
  ],
  path: (transport) => (transport === "http" ? "/mcp" : "/sse"),
};

export const PROGRAMS: readonly ServerProgram[] = [PROJECT_SERVER, REFERENCE_SERVER];

/** How long a server process may take to listen (generous: the machine is shared). */
const START_TIMEOUT_MS = 30_000;
/** Both programs print a line naming the port once they listen. */
const LISTENING = /(listening on|running on) port \d+/i;

/** A free port on 127.0.0.1 (bound, then released for the server to take). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A remote server program running as a child process. */
export interface RunningServer {
  url: string;
  /** Kills the process (SIGKILL: no goodbye to its clients) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts the program again on the same port. */
  restart(): Promise<void>;
  /** Ends it for good (also after a kill). */
  close(): Promise<void>;
}

/** Starts `program` over `transport` (http or sse) on a free loopback port and waits until it listens. */
export async function startRemote(
  program: ServerProgram,
  transport: Exclude<Transport, "stdio">,
  extraArgs: string[] = [],
): Promise<RunningServer> {
  const port = await freePort();
  let child = await launch(program, transport, port, extraArgs);
  const kill = async () => {
    const current = child;
    if (current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    current.kill("SIGKILL");
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}${program.path(transport)}`,
    kill,
    async restart() {
      await kill();
      child = await launch(program, transport, port, extraArgs);
    },
    close: kill,
  };
}

async function launch(
  program: ServerProgram,
  transport: Exclude<Transport, "stdio">,
  port: number,
  extraArgs: string[],
): Promise<ChildProcess> {
  // Only what the program needs: no HOME of the machine, no keys of the test's environment.
  const child = spawn(process.execPath, [...program.args(transport), ...extraArgs], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${program.label} did not listen within ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (LISTENING.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${program.label} exited (${code}) before listening: ${output}`));
    });
  });
  // Drained so that a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

/** The `tools.mcpServers` entry for `program` over stdio, or for a running remote server. */
export function serverEntry(
  program: ServerProgram,
  target: { transport: "stdio" } | { transport: "http" | "sse"; url: string },
  extra: Record<string, unknown> = {},
): McpServer {
  const config =
    target.transport === "stdio"
      ? { transport: "stdio", command: process.execPath, args: program.args("stdio") }
      : { transport: target.transport, url: target.url };
  return {
    name: program.name,
    config: { ...config, connectTimeoutMs: 20_000, permission: "auto", ...extra },
  } as McpServer;
}
