import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built `penguin` binary (`bin.cjs` beside the package's `dist/index.js`). */
export function penguinBin(): string {
  return join(dirname(fileURLToPath(import.meta.resolve("@penguin/cli"))), "bin.cjs");
}
