import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

/**
 * `penguin sessions list | show | delete | export | import`. The implementation is imported only
 * when one of them runs, so other commands do not load it.
 */
export function registerSessionsCommands(program: Command, setExitCode: SetExitCode): void {
  const sessions = program
    .command("sessions")
    .description("List, inspect, delete, export and import sessions.");
  const load = () => import("../commands/sessions.js");

  withDataDir(sessions.command("list").description("Every session, newest first."))
    .option("--json", "print the sessions as a JSON array")
    .action(async (opts) => setExitCode(await (await load()).sessionsList(opts)));

  withDataDir(
    sessions
      .command("show")
      .argument("<id>", "the session id")
      .description("A session's meta, files, counts and last status."),
  )
    .option("--json", "print the details as JSON")
    .action(async (id: string, opts) => setExitCode(await (await load()).sessionsShow(id, opts)));

  withDataDir(
    sessions
      .command("delete")
      .argument("<id>", "the session id")
      .description("Delete a session's traces and scratchpad (asks first on a terminal)."),
  )
    .option("-y, --yes", "delete without asking (required when stdin is not a terminal)")
    .action(async (id: string, opts) => setExitCode(await (await load()).sessionsDelete(id, opts)));

  withDataDir(
    sessions
      .command("export")
      .argument("<id>", "the session id")
      .description("Write a session as one JSONL file (mode 0600)."),
  )
    .option("-o, --output <file>", "where to write it (default: <id>.jsonl in the current folder)")
    .option("--force", "replace the file when it exists")
    .action(async (id: string, opts) => setExitCode(await (await load()).sessionsExport(id, opts)));

  withDataDir(
    sessions
      .command("import")
      .argument("<file>", "a file written by `penguin sessions export`")
      .description("Import an exported session."),
  )
    .option("--as <new-id>", "import under this session id instead of the file's own")
    .action(async (file: string, opts) => setExitCode(await (await load()).sessionsImport(file, opts)));
}
