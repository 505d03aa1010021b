import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type AgentApp, agent as acpAgent, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { type Agent, mcpSecretValues, SetupError } from "@penguin/core";
import type { ApprovalMode } from "@penguin/state";
import type { CliLog } from "../logging.js";
import { CLI_VERSION } from "../version.js";
import { AcpSession } from "./acp-session.js";
import { EditorFiles, editorFileCapabilities } from "./editor-files.js";
import { historyUpdates } from "./history.js";
import { sessionMcpServers } from "./mcp-servers.js";
import { approvalModeOf, modeState } from "./modes.js";
import { promptInput } from "./prompt-input.js";

export interface AcpAgentOptions {
  /** The agent, still loading when the editor's first requests arrive. */
  agent: Promise<Agent>;
  /** The model new sessions use (undefined: the config's default). */
  model?: string;
  /** The approval mode a session starts in. */
  mode: ApprovalMode;
  /** The execution profile of new sessions (undefined: the agent's `exec.profile`). */
  executionProfile?: string;
  log: CliLog;
}

/** An editor's servers that core refused (a clashing name, a bad URL) are invalid params. */
function setupFailure(
  error: unknown,
  fallbackCode: number,
  prefix: string,
  data?: Record<string, string>,
): RequestError {
  const why = error instanceof Error ? error.message : String(error);
  if (error instanceof SetupError && error.kind === "mcp_servers")
    return RequestError.invalidParams(data, why);
  // A config or model the user must fix: its message is the error's, not "Internal error".
  return new RequestError(fallbackCode, `${prefix}: ${why}`, data);
}

function checkWorkspace(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not an existing folder`);
}

/** The ACP agent: its handlers over the open sessions of one connection. */
export function penguinAcpAgent(opts: AcpAgentOptions): { app: AgentApp; disposeAll: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  const sessionOf = (sessionId: string): AcpSession => {
    const found = sessions.get(sessionId);
    if (!found) {
      // The code clients know as "not found", with a message a person can act on.
      throw new RequestError(-32002, `no session ${sessionId}: start one with session/new`, { sessionId });
    }
    return found;
  };

  // What the editor offers for files (from `initialize`): every session's file tools use it.
  let fileCapabilities = editorFileCapabilities(undefined);

  const app = acpAgent({ name: "penguin" })
    .onRequest("initialize", ({ params }) => {
      fileCapabilities = editorFileCapabilities(params.clientCapabilities);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "penguin", title: "Penguin", version: CLI_VERSION },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      checkWorkspace(params.cwd);
      const mcpServers = sessionMcpServers(params.mcpServers);
      opts.log.addSecrets(mcpSecretValues(mcpServers));
      // The session's id is known once it exists; the editor is asked for files only after that.
      let id = "";
      const files = EditorFiles.offeredBy(client, fileCapabilities, () => id);
      const session = await opts.agent
        .then((agent) =>
          agent.createSession({
            workspaceDir: params.cwd,
            model: opts.model,
            files,
            mcpServers,
            executionProfile: opts.executionProfile,
          }),
        )
        .catch((error: unknown) => {
          throw setupFailure(error, -32603, "cannot start a session");
        });
      id = session.id;
      const served = new AcpSession(session, client, opts.mode, opts.log, files);
      sessions.set(served.id, served);
      opts.log.debug({ session_id: served.id, workspace: params.cwd }, "acp session/new");
      return { sessionId: served.id, modes: modeState(served.approvalMode) };
    })
    .onRequest("session/load", async ({ params, client }) => {
      let served = sessions.get(params.sessionId);
      if (served === undefined) {
        const mcpServers = sessionMcpServers(params.mcpServers);
        opts.log.addSecrets(mcpSecretValues(mcpServers));
        const files = EditorFiles.offeredBy(client, fileCapabilities, () => params.sessionId);
        const session = await opts.agent
          .then((agent) => agent.resumeSession(params.sessionId, { files, mcpServers }))
          .catch((error: unknown) => {
            throw setupFailure(error, -32002, `cannot load session ${params.sessionId}`, {
              sessionId: params.sessionId,
            });
          });
        served = new AcpSession(session, client, opts.mode, opts.log, files);
        sessions.set(served.id, served);
      } else if (served.isRunning) {
        throw RequestError.invalidRequest(
          { sessionId: served.id },
          "the session has a prompt running: wait for its answer or send session/cancel",
        );
      }
      // The history first, then the answer: the editor shows the conversation as it was.
      for (const update of historyUpdates(served.session)) {
        await client.notify("session/update", { sessionId: served.id, update });
      }
      opts.log.debug({ session_id: served.id }, "acp session/load");
      return { modes: modeState(served.approvalMode) };
    })
    .onRequest("session/set_mode", ({ params }) => {
      const served = sessionOf(params.sessionId);
      served.setMode(approvalModeOf(params.modeId));
      opts.log.debug({ session_id: served.id, mode: params.modeId }, "acp session/set_mode");
      return {};
    })
    .onRequest("session/prompt", async ({ params }) => {
      const served = sessionOf(params.sessionId);
      return served.prompt(promptInput(params.prompt));
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const disposeAll = async () => {
    await Promise.allSettled([...sessions.values()].map((served) => served.dispose()));
    sessions.clear();
  };
  return { app, disposeAll };
}
