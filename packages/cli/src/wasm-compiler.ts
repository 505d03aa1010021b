import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { setFlagsFromString } from "node:v8";
import { FETCH_REQUEST_CREATED_CHANNEL } from "./request-created-channel.js";

/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) for the CLI's process.
 *
 * The only WebAssembly a session runs is the HTTP parser of Node's `fetch` (undici's llhttp).
 * The model's responses no longer go through it (the provider SDKs use Penguin's fetch over
 * node:http, whose parser is native), but `web_fetch` and an MCP server's HTTP transport do. Once
 * it has parsed a few responses V8 recompiles it with its optimising compiler on background
 * threads, and that compilation holds some 20 MiB of memory for a moment: the peak resident set of
 * a whole `penguin run` when the model's replies still came through it (111 MiB with it, 87 MiB
 * without, see docs/benchmarks.md section 11). The baseline code parses a response of a few
 * kilobytes in microseconds either way.
 *
 * The flags are set when the first request is created: after `fetch`'s JavaScript has loaded and
 * before the parser is compiled on the first connection. Set any earlier, they would cost that
 * JavaScript its code cache (V8 checks a cache against the flags in force; some 20 ms of CPU on
 * the first request, measured). Only the CLI sets them, as the flags are the process's, not a
 * library's to change: the launcher (bin.ts), for every command but `--version` and `--help`, so
 * that the code cache it makes knows them (withStartWasmFlags). Both are needed: in Node 20's V8,
 * `--no-wasm-tier-up` alone still let hot functions be optimised in some runs (measured). Flags
 * the user gave Node about either are theirs, and left as they are.
 */
export function keepWasmOnBaselineCompiler(): void {
  if (userChoseWasmTiering()) return;
  const onFirstRequest = () => {
    unsubscribe(FETCH_REQUEST_CREATED_CHANNEL, onFirstRequest);
    setBaseline(true);
  };
  subscribe(FETCH_REQUEST_CREATED_CHANNEL, onFirstRequest);
}

/** Whether Node was started with a flag about WebAssembly tiering (on its command line or NODE_OPTIONS). */
function userChoseWasmTiering(): boolean {
  return /wasm-(tier-up|dynamic-tiering)/.test(
    [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" "),
  );
}

/** Whether this process's flags keep WebAssembly on the baseline compiler now. */
let onBaseline = false;

function setBaseline(on: boolean): void {
  // V8's defaults in Node 20 are tier-up and dynamic tiering on.
  setFlagsFromString(on ? "--no-wasm-tier-up" : "--wasm-tier-up");
  setFlagsFromString(on ? "--no-wasm-dynamic-tiering" : "--wasm-dynamic-tiering");
  onBaseline = on;
}

/**
 * Runs `make` under the flags the process started with. V8 stamps a code cache with the flags in
 * force when it is made and refuses it under others; the next start reads it before these flags
 * change, so a cache made after they changed must be made under the start's values.
 */
export function withStartWasmFlags<T>(make: () => T): T {
  if (!onBaseline) return make();
  setBaseline(false);
  try {
    return make();
  } finally {
    setBaseline(true);
  }
}
