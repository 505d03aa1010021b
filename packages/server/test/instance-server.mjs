// A real server process on a data root and database another test server shares: a second
// instance. It prints its URL as one JSON line and runs until it is killed. Arguments: the data
// root, the workspace root, the database (absent: the data root's SQLite file), and where traces
// are kept (absent: files).
const [dataRoot, workspaceRoot, database, traces] = process.argv.slice(2);
const { startServer } = await import("../dist/index.js");
const server = await startServer({
  dataRoot,
  database,
  port: 0,
  workspaceRoots: [workspaceRoot],
  ...(traces ? { traces } : {}),
});
process.stdout.write(`${JSON.stringify({ url: server.url, instance: server.instance.id })}\n`);
