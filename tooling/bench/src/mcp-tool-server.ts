// A stand-in for an ordinary MCP server, for the request-size benchmark: about 15 tools with
// schemas of the size real servers send (the issue measured nine servers at 136 tools and 62 KB).
// It speaks just enough of MCP over stdio (initialize, tools/list, ping) in plain Node, without
// the SDK, so the benchmark package needs no MCP dependency and the servers start in milliseconds.
// The benchmark writes it to its scratch folder and starts it as `node <file> <server-number>`.

/** Tools of each stand-in server. */
export const TOOLS_PER_SERVER = 15;

export const MCP_TOOL_SERVER_SOURCE = String.raw`
import { createInterface } from "node:readline";
const server = Number(process.argv[2] ?? 1);
const tools = Array.from({ length: ${TOOLS_PER_SERVER} }, (_, i) => ({
  name: "action_" + (i + 1),
  description:
    "Performs action " + (i + 1) + " of service " + server + ": finds the matching records and returns them.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "What to look for, in plain words." },
      limit: { type: "integer", minimum: 1, maximum: 100, description: "The most results to return." },
      include_archived: { type: "boolean", description: "Whether archived records count too." },
    },
    required: ["query"],
    additionalProperties: false,
  },
}));
const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    reply(message.id, {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "bench-service-" + server, version: "1.0.0" },
    });
  } else if (message.method === "tools/list") {
    reply(message.id, { tools });
  } else if (message.method === "ping") {
    reply(message.id, {});
  } else {
    process.stdout.write(
      JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }) + "\n",
    );
  }
});
`;
