import { createRequire } from "node:module";

// Read from package.json (one level up from both src/ and dist/), so the version reported by
// `/api/health` and the OpenAPI document is always the published one.
const require = createRequire(import.meta.url);

/** The server's version as reported by `/api/health` and the OpenAPI document. */
export const SERVER_VERSION: string = (require("../package.json") as { version: string }).version;
