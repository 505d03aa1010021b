import type { Command } from "commander";
import { type SetExitCode, withDataDir } from "./options.js";

const AGENT_FLAG = "--agent <id>";
const AGENT_HELP = 'the agent (default: "default", created on demand)';

/**
 * `penguin config …`: models, default and vision model (the project config), and an agent's
 * system_config.yaml (show, defaults, tools sync). Implementations load only when they run.
 */
export function registerConfigCommands(program: Command, setExitCode: SetExitCode): void {
  const config = program.command("config").description("Models, default models and agent configuration.");
  const project = () => import("../commands/config.js");
  const agent = () => import("../commands/config-agent.js");

  const models = config.command("models").description("The models of the project config.");
  withDataDir(models.command("list").description("List the configured models (keys masked)."))
    .option("--json", "print them as JSON")
    .action(async (opts) => setExitCode(await (await project()).modelsList(opts)));
  withDataDir(
    models
      .command("add")
      .argument("<provider/model-id>", "e.g. openai/gpt-5, deepseek/deepseek-chat")
      .description("Add a model (replaces an entry with the same reference)."),
  )
    .option("--name <name>", "a display name")
    .option("--api <api>", "the wire protocol: openai, openai-responses, anthropic or openai-compatible")
    .option("--base-url <url>", "the provider's base URL")
    .option("--api-key-env <var>", "read the key from this environment variable (recommended)")
    .option("--api-key <key>", "store the key in the config file (0600); '-' reads it from stdin")
    .option("--context-window <n>", "the model's context window in tokens")
    .option("--max-tokens <n>", "the most output tokens per request")
    .option("--vision", "the model takes images")
    .option("--price-input <usd>", "US dollars per million input tokens")
    .option("--price-output <usd>", "US dollars per million output tokens")
    .option("--price-cache-read <usd>", "US dollars per million cached input tokens")
    .option("--price-cache-write <usd>", "US dollars per million tokens written to the cache")
    .action(async (ref: string, opts) => setExitCode(await (await project()).modelsAdd(ref, opts)));
  withDataDir(models.command("remove").argument("<provider/model-id>").description("Remove a model.")).action(
    async (ref: string, opts) => setExitCode(await (await project()).modelsRemove(ref, opts)),
  );

  withDataDir(
    config
      .command("default-model")
      .argument("[ref]", "provider/model-id or replay:FILE; omitted: show the current one")
      .description("Show or set the model sessions use when none is named."),
  ).action(async (ref: string | undefined, opts) =>
    setExitCode(await (await project()).defaultModel(ref, opts)),
  );
  withDataDir(
    config
      .command("vision-model")
      .argument("[ref]", "a listed model marked --vision; omitted: show the current one")
      .description("Show or set the model describe_image asks."),
  ).action(async (ref: string | undefined, opts) =>
    setExitCode(await (await project()).visionModel(ref, opts)),
  );

  withDataDir(config.command("show").description("Print an agent's effective system_config.yaml."))
    .option(AGENT_FLAG, AGENT_HELP)
    .action(async (opts) => setExitCode(await (await agent()).configShow(opts)));
  // The defaults do not depend on the data root; --data-dir is accepted like everywhere else.
  withDataDir(
    config
      .command("defaults")
      .description("Print the default system_config.yaml (every tool definition) to copy from."),
  ).action(async () => setExitCode(await (await agent()).configDefaults()));

  const tools = config.command("tools").description("An agent's tool list.");
  withDataDir(
    tools
      .command("sync")
      .description("Add the default tools an agent's frozen list lacks (shows the change first)."),
  )
    .option(AGENT_FLAG, AGENT_HELP)
    .option("-y, --yes", "apply without asking (without it and with no terminal: a dry run)")
    .action(async (opts) => setExitCode(await (await agent()).toolsSync(opts)));
}
