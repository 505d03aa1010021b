import { setFlagsFromString } from "node:v8";

/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) for the CLI's process.
 *
 * The only WebAssembly a session runs is the HTTP parser of Node's `fetch` (undici's llhttp),
 * which reads the model's responses. Once it has parsed a few responses V8 recompiles it with
 * its optimising compiler on background threads, and that compilation holds some 20 MiB of
 * memory for a moment: the peak resident set of a whole `penguin run` (111 MiB with it, 87 MiB
 * without, see docs/benchmarks.md section 11). The baseline code parses a model's response,
 * a few kilobytes, in microseconds either way.
 *
 * It must run before the first `fetch` compiles the parser; only the CLI sets it, as the flags
 * are the process's, not a library's to change. Both flags are needed: in Node 20's V8,
 * `--no-wasm-tier-up` alone still let hot functions be optimised in some runs (measured).
 */
export function keepWasmOnBaselineCompiler(): void {
  setFlagsFromString("--no-wasm-tier-up");
  setFlagsFromString("--no-wasm-dynamic-tiering");
}
