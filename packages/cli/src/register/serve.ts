import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/** `penguin serve`: the HTTP server and web UI, from the optional `@penguin/server` package. */
export function registerServeCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("serve")
      .description("Start the HTTP server and web UI (needs the @penguin/server package)."),
  )
    .option("--host <host>", "the address to listen on", "127.0.0.1")
    .option("--port <port>", "the port to listen on (0 picks a free one)", "7364")
    .action(async (opts) => {
      const { serveCommand } = await import("../commands/serve.js");
      setExitCode(await serveCommand(opts));
    });
}
