import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { setFlagsFromString } from "node:v8";

/** Node's `fetch` (undici) announces each request it creates here, before it connects. */
const REQUEST_CREATED_CHANNEL = "undici:request:create";

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
 * The flags are set when the first request is created: after `fetch`'s JavaScript has loaded and
 * before the parser is compiled on the first connection. Set any earlier, they would cost that
 * JavaScript its code cache (V8 checks a cache against the flags in force; some 20 ms of CPU on
 * the first request, measured). Only the CLI sets them, as the flags are the process's, not a
 * library's to change. Both are needed: in Node 20's V8, `--no-wasm-tier-up` alone still let hot
 * functions be optimised in some runs (measured).
 */
export function keepWasmOnBaselineCompiler(): void {
  const onFirstRequest = () => {
    unsubscribe(REQUEST_CREATED_CHANNEL, onFirstRequest);
    setFlagsFromString("--no-wasm-tier-up");
    setFlagsFromString("--no-wasm-dynamic-tiering");
  };
  subscribe(REQUEST_CREATED_CHANNEL, onFirstRequest);
}
