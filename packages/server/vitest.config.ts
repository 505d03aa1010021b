import { defineConfig } from "vitest/config";
import { hermeticTestEnv, scratchTeardown, sharedTestConfig } from "../../vitest.shared.js";

/**
 * The server suite runs twice: on SQLite (each test server its data root's file) and on
 * PostgreSQL (a private server for the run, a database per test server; see
 * test/postgres/global-setup.ts). PENGUIN_TEST_POSTGRES=off leaves the second out, for a machine
 * without PostgreSQL; PENGUIN_TEST_POSTGRES_URL points it at a server of your own.
 */
const env = hermeticTestEnv();
const withPostgres = process.env.PENGUIN_TEST_POSTGRES !== "off";

export default defineConfig({
  test: {
    ...sharedTestConfig,
    env,
    globalSetup: [scratchTeardown],
    projects: [
      { extends: true, test: { name: "sqlite", env: { ...env, PENGUIN_TEST_DATABASE: "sqlite" } } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                env: { ...env, PENGUIN_TEST_DATABASE: "postgres" },
                globalSetup: ["test/postgres/global-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
