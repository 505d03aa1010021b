import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

const collect = (value: string, previous: string[]) => [...previous, value];

/** `penguin serve`: the HTTP server and web UI, from the optional `@penguin/server` package. */
export function registerServeCommand(program: Command, setExitCode: SetExitCode): void {
  withDataDir(
    program
      .command("serve")
      .description("Start the HTTP server and web UI (needs the @penguin/server package)."),
  )
    .option("--host <host>", "the address to listen on", "127.0.0.1")
    .option("--port <port>", "the port to listen on (0 picks a free one)", "7364")
    .option(
      "--database <url-or-file>",
      "a postgres://user:password@host:5432/db URL, or a SQLite file (default $PENGUIN_DATABASE_URL, else <data dir>/server/penguin.db)",
    )
    .option(
      "--traces <where>",
      "files: traces in the data dir only (instances on several machines share it on a volume); database: in the PostgreSQL database as well, so each instance may have its own data dir",
    )
    .option(
      "--advertise-url <url>",
      "with several instances on one database: the URL others are told to send this instance's sessions' calls to, e.g. http://10.0.0.5:7364 (default: the URL it listens on)",
    )
    .option(
      "--workspace-root <dir>",
      "a folder session workspaces may be picked from (repeatable; default: your home folder)",
      collect,
      [],
    )
    .option("--secure-cookies", "mark the session cookie Secure (when users reach the server over https)")
    .option(
      "--allowed-origin <origin>",
      "an origin accepted by the CSRF check besides the server's own, e.g. https://penguin.example.com behind a proxy that rewrites Host (repeatable)",
      collect,
      [],
    )
    .option(
      "--allowed-host <name>",
      "a host name the server answers for besides IP addresses, localhost and --host, e.g. penguin.example.com (repeatable; other Host headers get 421)",
      collect,
      [],
    )
    .option(
      "--max-streams-per-user <count>",
      "live streams (SSE) one user may have open at once (default 32; beyond it 429)",
    )
    .option(
      "--trusted-proxy <address>",
      "the IP address of a reverse proxy whose X-Forwarded-For names the client, for the login backoff per address (repeatable)",
      collect,
      [],
    )
    .option(
      "--idle-release <minutes>",
      "release a session's runtime after this many idle minutes (default 10)",
    )
    .option(
      "--metrics-port <port>",
      "also serve Prometheus metrics at http://127.0.0.1:<port>/metrics (loopback only, whatever --host is)",
    )
    .action(async (opts) => {
      const { serveCommand } = await import("../commands/serve.js");
      setExitCode(await serveCommand(opts));
    });
}
