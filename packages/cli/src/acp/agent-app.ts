import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type AgentApp,
  agent as acpAgent,
  type ContentBlock,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { Agent } from "@penguin/core";
import type { ApprovalMode } from "@penguin/state";
import type { CliLog } from "../logging.js";
import { CLI_VERSION } from "../version.js";
import { AcpSession } from "./acp-session.js";
import { EditorFiles, editorFileCapabilities } from "./editor-files.js";
import { historyUpdates } from "./history.js";
import { approvalModeOf, modeState } from "./modes.js";

export interface AcpAgentOptions {
  /** The agent, still loading when the editor's first requests arrive. */
  agent: Promise<Agent>;
  /** The model new sessions use (undefined: the config's default). */
  model?: string;
  /** The approval mode a session starts in. */
  mode: ApprovalMode;
  log: CliLog;
}

/**
 * The prompt's blocks as the task's text: text as written, a linked resource as its URI (the
 * model reads it with its tools). Images and embedded resources are not advertised, so a
 * client does not send them; one that does is told so.
 */
function promptText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "resource_link") parts.push(block.uri);
    else
      throw RequestError.invalidParams(
        { type: block.type },
        `prompt blocks of type ${block.type} are not supported`,
      );
  }
  return parts.join("\n");
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
          promptCapabilities: { image: false, audio: false, embeddedContext: false },
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      checkWorkspace(params.cwd);
      // The session's id is known once it exists; the editor is asked for files only after that.
      let id = "";
      const files = EditorFiles.offeredBy(client, fileCapabilities, () => id);
      const session = await opts.agent
        .then((agent) => agent.createSession({ workspaceDir: params.cwd, model: opts.model, files }))
        .catch((error: unknown) => {
          // A config or model the user must fix: its message is the error's, not "Internal error".
          const why = error instanceof Error ? error.message : String(error);
          throw new RequestError(-32603, `cannot start a session: ${why}`);
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
        const files = EditorFiles.offeredBy(client, fileCapabilities, () => params.sessionId);
        const session = await opts.agent
          .then((agent) => agent.resumeSession(params.sessionId, { files }))
          .catch((error: unknown) => {
            const why = error instanceof Error ? error.message : String(error);
            throw new RequestError(-32002, `cannot load session ${params.sessionId}: ${why}`, {
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
      return served.prompt(promptText(params.prompt));
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
