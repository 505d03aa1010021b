// One configuration of the comparison, set up from nothing and torn down after its measurement:
// a data root, a fake model, one or two server instances on one database.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { onCleanup } from "./cleanup.mjs";
import { bearerToken } from "./clients.mjs";
import { startInstance } from "./instances.mjs";
import { measureLoad } from "./measure.mjs";
import { createBenchDatabase, sessionOwners } from "./postgres.mjs";

/** Every client holds one stream; the bench's own clients must not meet the per-user cap. */
const STREAM_CAP_MARGIN = 8;

/**
 * Runs `configuration` (`{ name, instances: 1 | 2, crossed?, postgres?: admin URL, traces? }`;
 * with `traces: "database"` each instance has a data root of its own) with `load`
 * (`{ sessions, chars, chunkSize, chunkDelayMs }`) and returns its measurement.
 */
export async function runConfiguration(configuration, load, round) {
  const { startFakeLlm } = await import("@penguin/fake-llm");
  const { createParser } = await import("eventsource-parser");
  const { saveProjectConfig } = await import("@penguin/state");
  const { ProjectConfigSchema } = await import("@penguin/state/schemas");
  const teardown = [];
  try {
    const root = mkdtempSync(join(tmpdir(), "penguin-server-load-"));
    teardown.push(onCleanup(() => rmSync(root, { recursive: true, force: true })));
    const dataRoot = join(root, "data");
    const workspaceRoot = join(root, "workspaces");
    const workspace = join(workspaceRoot, "w");
    mkdirSync(workspace, { recursive: true });

    const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(load.chars / 27)).slice(0, load.chars);
    const llm = await startFakeLlm({
      apiKey: "sk-bench",
      script: Array.from({ length: load.sessions }, () => ({
        text,
        chunk_size: load.chunkSize,
        chunk_delay_ms: load.chunkDelayMs,
        usage: { input_tokens: 100, output_tokens: 50 },
      })),
    });
    teardown.push(onCleanup(() => llm.close()));
    const projectConfig = ProjectConfigSchema.parse({
      default_model: "fake/fake-model",
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-bench",
        },
      ],
    });
    // With traces in the database the instances share no data root: each has its own.
    const dataRootOf = (i) =>
      configuration.traces === "database" && i > 0 ? join(root, `data-${i}`) : dataRoot;
    for (let i = 0; i < configuration.instances; i++) await saveProjectConfig(dataRootOf(i), projectConfig);

    let database;
    if (configuration.postgres !== undefined) {
      const name = `penguin_bench_${process.pid}_${round}_${configuration.name.replaceAll("-", "_")}`;
      const created = await createBenchDatabase(configuration.postgres, name);
      teardown.push(created.drop);
      database = created.url;
    }
    const instances = [];
    let token;
    // One after the other, the token minted before the next starts: the first creates the admin
    // and tells its password, and a later one would renew a password still unchanged.
    for (let i = 0; i < configuration.instances; i++) {
      const instance = await startInstance({
        dataRoot: dataRootOf(i),
        workspaceRoot,
        database,
        traces: configuration.traces,
        home: join(root, `home-${i}`),
        maxStreamsPerUser: load.sessions + STREAM_CAP_MARGIN,
      });
      teardown.push(instance.stop);
      instances.push(instance);
      token ??= await bearerTokenOf(instance);
    }
    const result = await measureLoad({
      instances,
      crossed: configuration.crossed === true,
      token,
      workspace,
      sessions: load.sessions,
      createParser,
    });
    if (database !== undefined && instances.length > 1) {
      const owners = await sessionOwners(database);
      result.sessions_per_instance = instances.map((instance) => owners[instance.instance] ?? 0);
      const expected = instances.map((_, i) => Math.ceil((load.sessions - i) / instances.length));
      if (result.sessions_per_instance.join() !== expected.join()) {
        throw new Error(
          `${configuration.name}: sessions ran ${result.sessions_per_instance.join(" / ")} per instance, not ${expected.join(" / ")}`,
        );
      }
    }
    return { configuration: configuration.name, round, ...result, load_1m: Number(loadavg()[0].toFixed(2)) };
  } finally {
    for (const undo of teardown.toReversed()) await undo();
  }
}

function bearerTokenOf(instance) {
  if (instance.password === undefined) throw new Error("the first instance did not create the admin");
  return bearerToken(instance.url, instance.password);
}
