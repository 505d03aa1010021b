import { createAgent } from "@penguin/core";
import { penguinAcpAgent } from "../acp/agent-app.js";
import { protocolOnStdio } from "../acp/stdio.js";
import { dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED } from "../exit-codes.js";
import { openCliLog } from "../logging.js";
import { resolveModelRef } from "../model-choice.js";
import { checkApprovalMode } from "../session/session-flags.js";

export interface AcpOptions {
  model?: string;
  approve: string;
  /** The execution profile of new sessions (a loaded session keeps the one it recorded). */
  profile?: string;
  verbose?: boolean;
  dataDir?: string;
}

/**
 * `penguin acp`: serves the Agent Client Protocol on stdin/stdout until the editor closes stdin
 * (or ends the process); every session is then disposed, its running commands ended.
 */
export async function acpCommand(opts: AcpOptions): Promise<number> {
  const mode = checkApprovalMode(opts.approve);
  const model = resolveModelRef(opts.model);
  const dataRoot = dataRootOf(opts);
  const log = await openCliLog(dataRoot, opts.verbose);
  log.debug({ command: "acp", approve: mode }, "command start");
  // Loaded while the editor initializes: `initialize` is answered without waiting for it.
  const agent = createAgent({ dataRoot, logger: log.agentLogger });
  agent.catch(() => {});
  const { app, disposeAll } = penguinAcpAgent({ agent, model, mode, log, executionProfile: opts.profile });
  const { stream, ended } = protocolOnStdio();
  const connection = app.connect(stream);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= disposeAll();
    return stopping;
  };
  const onSignal = () => void stop().finally(() => process.exit(EXIT_COMPLETED));
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  await Promise.race([connection.closed, ended]);
  await stop();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  log.debug({ command: "acp" }, "command end");
  return EXIT_COMPLETED;
}
