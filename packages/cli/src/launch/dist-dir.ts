import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of the launcher's files: `dist/` for the built `bin.cjs`. It is CommonJS and knows its
 * folder as a path; a URL made from it would misread a folder named with `#` or `%`. Under an ES
 * module loader (tests run the source) it has a URL.
 */
export function distDir(): string {
  return typeof __dirname === "string" ? __dirname : dirname(fileURLToPath(import.meta.url));
}
