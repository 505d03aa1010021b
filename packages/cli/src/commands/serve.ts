import { dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { note } from "../output.js";

export interface ServeOptions {
  host: string;
  port: string;
  dataDir?: string;
}

/** The package `penguin serve` loads; an optional dependency, so the CLI installs without it. */
export const SERVER_PACKAGE = "@penguin/server";

type ServerModule = typeof import("@penguin/server");

/** Loads the server package, or explains how to install it. */
async function loadServer(): Promise<ServerModule> {
  try {
    return await import(SERVER_PACKAGE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const missing =
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      String((error as Error).message).includes(SERVER_PACKAGE);
    if (!missing) throw error;
    throw new UsageError(
      `penguin serve needs the ${SERVER_PACKAGE} package, which is not installed: ` +
        `install it next to the CLI (npm install -g ${SERVER_PACKAGE}) and run penguin serve again`,
      EXIT_TASK_FAILED,
    );
  }
}

/** `penguin serve`: serves the API and web UI until Ctrl-C or SIGTERM. */
export async function serveCommand(opts: ServeOptions): Promise<number> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port takes a port number from 0 to 65535, not "${opts.port}"`);
  }
  const server = await loadServer();
  const running = await server.startServer({ host: opts.host, port, dataRoot: dataRootOf(opts) });
  note(`penguin server listening on ${running.url}`);
  if (running.initialAdmin) note(server.formatInitialAdminNotice(running.initialAdmin));
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  note("stopping…");
  await running.close();
  return EXIT_COMPLETED;
}
