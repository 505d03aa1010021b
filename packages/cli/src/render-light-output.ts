// An entry of the ES module build, for scripts/make-light-output.mjs: what `--version` and
// `--help` print, from the command tree itself, at the width the build keeps (launch/light-output.ts).
import { HELP_WIDTH } from "./help-width.js";
import type { LightOutput } from "./launch/light-output.js";
import { buildProgram } from "./main.js";
import { CLI_VERSION } from "./version.js";

export function renderLightOutput(): LightOutput {
  const program = buildProgram(() => {});
  program.configureHelp({ helpWidth: HELP_WIDTH });
  return { version: CLI_VERSION, help: program.helpInformation() };
}
