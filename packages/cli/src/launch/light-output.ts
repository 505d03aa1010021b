import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT_COMPLETED, EXIT_USAGE } from "../exit-codes.js";
import { HELP_WIDTH, helpWidthFor } from "../help-width.js";
import type { LightInvocation } from "./light-invocation.js";

/**
 * What `penguin --version` and `penguin --help` print, made at build time from the command tree
 * itself (scripts/make-light-output.mjs, render-light-output.ts) and kept beside the binary.
 * "`penguin --version` and `--help` stay under 1.5× `node -e 0`": printing it costs one small file
 * read, where loading commander and the command tree to print the same text cost as much again as
 * Node's own start.
 */
export const LIGHT_OUTPUT_FILE = "light-output.json";

export interface LightOutput {
  /** The package's version, as `--version` prints it. */
  version: string;
  /** The top-level help at HELP_WIDTH, as `--help` prints it. */
  help: string;
}

export interface LightStreams {
  stdout: { isTTY?: boolean; columns?: number; write(text: string): unknown };
  stderr: { isTTY?: boolean; columns?: number; write(text: string): unknown };
}

function readLightOutput(path: string): LightOutput | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LightOutput>;
    if (typeof parsed.version !== "string" || typeof parsed.help !== "string" || parsed.help === "")
      return undefined;
    return { version: parsed.version, help: parsed.help };
  } catch {
    return undefined;
  }
}

/**
 * Prints the answer to a command line that only prints (light-invocation.ts) from the build's file
 * and returns the exit code, as commander's path would: the version and the help on stdout with 0;
 * no arguments at all, the help on stderr with the usage code. Undefined when the file is missing
 * or unreadable, or the help goes to a terminal narrower than it: the caller runs the command line.
 */
export function printLightOutput(
  invocation: LightInvocation,
  distDir: string,
  streams: LightStreams,
): number | undefined {
  const output = readLightOutput(join(distDir, LIGHT_OUTPUT_FILE));
  if (output === undefined) return undefined;
  if (invocation === "version") {
    streams.stdout.write(`${output.version}\n`);
    return EXIT_COMPLETED;
  }
  const stream = invocation === "usage" ? streams.stderr : streams.stdout;
  // Commander would wrap the help to a narrower terminal: only the build's width is kept.
  if (helpWidthFor(stream) !== HELP_WIDTH) return undefined;
  stream.write(output.help);
  return invocation === "usage" ? EXIT_USAGE : EXIT_COMPLETED;
}
