#!/usr/bin/env node
import { isLightInvocation } from "./launch/light-invocation.js";
import { startUpBundle } from "./launch/start-up-bundle.js";

// Two ways into the same command line. `--version` and `--help` load the ES module build, which
// loads only commander and the command tree. Every other command runs the one-file build of the
// CLI through V8's code cache, so a session does not compile its code again at every start; a
// build without that file (or a cache that cannot be used) falls back to the ES module build.
// This file is built as CommonJS (`dist/bin.cjs`, tsup.start-up.config.ts): an ES module entry
// would start Node's ES module loader first.
const bundle = isLightInvocation(process.argv.slice(2)) ? undefined : startUpBundle();
if (bundle === undefined) {
  import("./run-cli.js").then(({ runCli }) => runCli());
} else {
  bundle.run();
}
