import { readFile } from "node:fs/promises";
import { createAgent, REDACTED, saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { defineRoute, serverLogFile } from "../src/index.js";
import { adminSession, request, startTestServer, tempDataRoot } from "./helpers.js";

const PROJECT_KEY = "sk-project-key-0123456789abcdef";
const ENV_NAMED_KEY = "sk-env-named-key-fedcba9876543210";
const AGENT_SECRET = "agent-listed-secret-value-42";
const MCP_HEADER_TOKEN = "mcp-header-token-5555aaaa";
const MCP_ENV_VALUE = "mcp-env-value-7777bbbb";

const envNames = ["PENGUIN_TEST_PROVIDER_KEY", "PENGUIN_TEST_AGENT_SETTING"] as const;
afterEach(() => {
  for (const name of envNames) delete process.env[name];
});

describe("the server log", () => {
  it("scrubs the project's keys, agents' secrets and MCP values from error messages", async () => {
    const dataRoot = await tempDataRoot();
    process.env.PENGUIN_TEST_PROVIDER_KEY = ENV_NAMED_KEY;
    // A name that does not look like a credential: redacted only because the agent lists it.
    process.env.PENGUIN_TEST_AGENT_SETTING = AGENT_SECRET;
    await saveProjectConfig(
      dataRoot,
      ProjectConfigSchema.parse({
        models: [
          { provider: "acme", api: "openai", model_id: "m1", api_key: PROJECT_KEY },
          { provider: "acme", api: "openai", model_id: "m2", api_key_env: "PENGUIN_TEST_PROVIDER_KEY" },
        ],
      }),
    );
    const agent = await createAgent(dataRoot, "tools", {
      secrets: ["PENGUIN_TEST_AGENT_SETTING"],
      tools: {
        mcpServers: [
          {
            name: "remote",
            config: {
              transport: "http",
              url: "https://mcp.example/",
              headers: { authorization: `Bearer ${MCP_HEADER_TOKEN}` },
            },
          },
          {
            name: "local",
            config: { transport: "stdio", command: "mcp-local", env: { SETTING: MCP_ENV_VALUE } },
          },
        ],
      },
    });
    expect(agent.ok).toBe(true);

    const leaky = defineRoute({
      method: "get",
      path: "/api/leaky",
      summary: "Fails with the keys in its message, as a provider error sometimes does",
      tag: "test",
      access: "user",
      responses: { 200: { description: "never" } },
      handle() {
        throw new Error(
          `upstream refused ${PROJECT_KEY}, ${ENV_NAMED_KEY}, ${AGENT_SECRET}, ${MCP_HEADER_TOKEN}, ${MCP_ENV_VALUE}`,
        );
      },
    });
    const server = await startTestServer({ dataRoot, routes: [leaky] });
    const cookie = await adminSession(server);
    expect((await request(server.url, "/api/leaky", { cookie })).status).toBe(500);
    await server.close();

    const text = await readFile(serverLogFile(dataRoot), "utf8");
    const failure = text.split("\n").find((line) => line.includes("unhandled error"));
    expect(failure).toBeDefined();
    expect(failure).toContain(`upstream refused ${REDACTED}`);
    for (const secret of [PROJECT_KEY, ENV_NAMED_KEY, AGENT_SECRET, MCP_HEADER_TOKEN, MCP_ENV_VALUE]) {
      expect(text).not.toContain(secret);
    }
  });
});
