import { createRequire } from "node:module";

// Read from package.json so `penguin --version` and the published package never disagree.
const require = createRequire(import.meta.url);
export const CLI_VERSION: string = (require("../package.json") as { version: string }).version;
