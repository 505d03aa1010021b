// The entry of `dist/cli.cjs`: the whole CLI in one CommonJS file, which `bin.cjs` compiles with
// V8's code cache (see launch/start-up-bundle.ts). The same command line as the ES module build.
import { runCli } from "./run-cli.js";

runCli();
