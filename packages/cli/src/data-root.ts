import { resolve } from "node:path";
import { resolveDataRoot, scratchpadRoot, tracesDir } from "@penguin/state";
import type { TraceLocation } from "@penguin/trace";

/** Options every data command takes. */
export interface DataRootOptions {
  /** `--data-dir`: overrides `$PENGUIN_HOME` and `~/.penguin/data`. */
  dataDir?: string;
}

/** "All commands take `--data-dir <dir>` (default `$PENGUIN_HOME`, else `~/.penguin/data`)." */
export function dataRootOf(opts: DataRootOptions): string {
  return opts.dataDir !== undefined && opts.dataDir !== "" ? resolve(opts.dataDir) : resolveDataRoot();
}

/** Where `@penguin/trace` finds the traces and scratchpads of a data root. */
export function traceLocationOf(root: string): TraceLocation {
  return { tracesDir: tracesDir(root), scratchpadRoot: scratchpadRoot(root) };
}
