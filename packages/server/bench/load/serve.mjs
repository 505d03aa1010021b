// Child process: one server instance under test. Options: JSON `{ dataRoot, workspaceRoot,
// database?, traces?, maxStreamsPerUser }` in PENGUIN_BENCH_SERVE_OPTIONS (removed from the environment
// before the server starts: its sessions' shells inherit it). Prints `{ url, instance,
// password? }` as one line once it listens (`password`: the initial admin password, from the
// instance that created the admin), and runs until SIGTERM or until its parent goes (stdin closes), so a benchmark killed without
// its cleanup leaves no server behind.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const { dataRoot, workspaceRoot, database, traces, maxStreamsPerUser } = JSON.parse(
  process.env.PENGUIN_BENCH_SERVE_OPTIONS ?? "{}",
);
delete process.env.PENGUIN_BENCH_SERVE_OPTIONS;
const { startServer } = await import(join(HERE, "..", "..", "dist", "index.js"));
const { default: pino } = await import("pino");
const server = await startServer({
  dataRoot,
  database,
  ...(traces ? { traces } : {}),
  port: 0,
  workspaceRoots: [workspaceRoot],
  maxStreamsPerUser,
  webRoot: false,
  logger: pino({ level: "silent" }),
});
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
process.stdout.write(
  `${JSON.stringify({ url: server.url, instance: server.instance.id, password: server.initialAdmin?.password })}\n`,
);
