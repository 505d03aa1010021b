import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { CLI_BIN } from "./helpers.js";

type FileSystemCapabilities = NonNullable<ClientCapabilities["fs"]>;

/**
 * How the test answers one permission request: an option's kind, `cancelled`, or `wait`: no
 * answer until the agent cancels the request (then `cancelled`, as an editor answers).
 */
export type PermissionChoice = (request: RequestPermissionRequest) => string;

/**
 * `penguin acp` as an editor runs it: the built binary as a child process, driven by the SDK's
 * client-side connection over its stdin/stdout. Every `session/update` and permission request
 * is kept; stdout is checked to carry nothing but protocol messages.
 */
export class AcpChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: ClientConnection;
  readonly updates: SessionNotification[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  /** The requests the agent cancelled while they waited for an answer. */
  readonly cancelledRequests: RequestPermissionRequest[] = [];
  stderr = "";
  /** Everything the child wrote on stdout, to check it is protocol only. */
  stdout = "";
  private choose: PermissionChoice = () => "cancelled";
  /**
   * The editor's open buffers, by absolute path: `fs/read_text_file` answers from them (else from
   * the disk, as an editor does for a file it has not opened), `fs/write_text_file` changes them
   * only (the editor saves when its user says so).
   */
  readonly buffers = new Map<string, string>();
  /** The file requests the agent made, in order. */
  readonly fileRequests: { method: "read" | "write"; path: string }[] = [];
  /** When set, every file request is refused with this error (as an editor reports a failure). */
  fileError: string | undefined;
  /** When set, `fs/read_text_file` is not answered until the agent cancels it (then recorded here). */
  holdReads = false;
  readonly cancelledReads: string[] = [];
  /** Runs after each `fs/read_text_file` is answered (e.g. the user types into the buffer). */
  afterRead: ((path: string) => void) | undefined;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [CLI_BIN, "acp", ...args], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.stdout += chunk.toString();
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    const app = client({ name: "penguin-test-editor" })
      .onNotification("session/update", ({ params }) => {
        this.updates.push(params);
      })
      .onRequest("fs/read_text_file", async ({ params, signal }) => {
        this.fileRequests.push({ method: "read", path: params.path });
        if (this.fileError) throw new Error(this.fileError);
        if (this.holdReads) {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          this.cancelledReads.push(params.path);
          throw new Error("cancelled");
        }
        const content = this.buffers.get(params.path) ?? readFileSync(params.path, "utf8");
        this.afterRead?.(params.path);
        return { content };
      })
      .onRequest("fs/write_text_file", async ({ params }) => {
        this.fileRequests.push({ method: "write", path: params.path });
        if (this.fileError) throw new Error(this.fileError);
        this.buffers.set(params.path, params.content);
        return {};
      })
      .onRequest(
        "session/request_permission",
        async ({ params, signal }): Promise<RequestPermissionResponse> => {
          this.permissionRequests.push(params);
          const kind = this.choose(params);
          if (kind === "wait") {
            await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
            this.cancelledRequests.push(params);
            return { outcome: { outcome: "cancelled" } };
          }
          if (kind === "cancelled") return { outcome: { outcome: "cancelled" } };
          const option = params.options.find((o) => o.kind === kind);
          if (!option) throw new Error(`no ${kind} option offered`);
          return { outcome: { outcome: "selected", optionId: option.optionId } };
        },
      );
    const stream = ndJsonStream(
      Writable.toWeb(this.child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>,
    );
    this.connection = app.connect(stream);
  }

  get agent() {
    return this.connection.agent;
  }

  onPermission(choose: PermissionChoice): void {
    this.choose = choose;
  }

  /** `fs`: what the test editor offers for files (default: nothing, the agent uses the disk). */
  async initialize(fs: FileSystemCapabilities = { readTextFile: false, writeTextFile: false }) {
    return this.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs, terminal: false },
    });
  }

  /** The updates of one session, as their `update` objects. */
  updatesOf(sessionId: string) {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /** The stdout lines that are not JSON-RPC messages (there should be none). */
  nonProtocolLines(): string[] {
    return this.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .filter((line) => {
        try {
          return (JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc !== "2.0";
        } catch {
          return true;
        }
      });
  }

  async close(): Promise<void> {
    this.connection.close();
    this.child.stdin.end();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}
