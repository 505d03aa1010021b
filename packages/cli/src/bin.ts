#!/usr/bin/env node
import { distDir } from "./launch/dist-dir.js";
import { lightInvocation } from "./launch/light-invocation.js";
import { printLightOutput } from "./launch/light-output.js";
import { startUpBundle } from "./launch/start-up-bundle.js";
import { keepWasmOnBaselineCompiler } from "./wasm-compiler.js";

// Three ways into the same command line. A lone `--version` or `--help` prints the text the build
// rendered from the command tree (launch/light-output.ts); without that file, or for a terminal
// narrower than that text, they load the ES module build, which loads only commander and the
// command tree. Every other command runs the one-file build of the CLI through V8's code cache, so
// a session does not compile its code again at every start; a build without that file (or a cache
// that cannot be used) falls back to the ES module build. This file is built as CommonJS
// (`dist/bin.cjs`, tsup.start-up.config.ts): an ES module entry would start Node's ES module loader first.
const light = lightInvocation(process.argv.slice(2));
const printed = light === undefined ? undefined : printLightOutput(light, distDir(), process);
if (printed !== undefined) {
  process.exitCode = printed;
} else {
  keepWasmOnBaselineCompiler();
  const bundle = light === undefined ? startUpBundle() : undefined;
  if (bundle === undefined) {
    import("./run-cli.js").then(({ runCli }) => runCli());
  } else {
    bundle.run();
  }
}
