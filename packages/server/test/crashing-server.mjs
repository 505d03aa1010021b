// A real server process that kills itself with SIGKILL the moment its trace is about to record a
// tool call's result: the tool has done its work, its result never reaches the trace, as when
// the machine loses power or the process is killed mid-call. It prints its address and the
// initial admin password as one JSON line. A third argument names the database (default: the data
// root's SQLite file).
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const [dataRoot, workspaceRoot, database] = process.argv.slice(2);

const writeSync = fs.writeSync;
fs.writeSync = (fd, data, ...rest) => {
  const text =
    typeof data === "string"
      ? data
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
  if (text.includes('"type":"tool_call_output"')) {
    process.kill(process.pid, "SIGKILL");
    for (;;) {}
  }
  return writeSync(fd, data, ...rest);
};
syncBuiltinESMExports();

const { startServer } = await import("../dist/index.js");
const server = await startServer({ dataRoot, database, port: 0, workspaceRoots: [workspaceRoot] });
process.stdout.write(`${JSON.stringify({ url: server.url, password: server.initialAdmin?.password })}\n`);
