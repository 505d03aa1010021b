import { createRequire } from "node:module";

/**
 * The package's version, written into the build by tsup (`define`, from package.json, read as the
 * build starts): so `penguin --version` and the published package never disagree, and a start does
 * not resolve and parse package.json (some 1.2 ms of every `penguin run`, measured). Code run from
 * the sources (the tests) has no build, and reads package.json.
 */
declare const __PENGUIN_CLI_VERSION__: string | undefined;

export const CLI_VERSION: string =
  typeof __PENGUIN_CLI_VERSION__ === "string" ? __PENGUIN_CLI_VERSION__ : versionInPackageJson();

function versionInPackageJson(): string {
  const require = createRequire(import.meta.url);
  return (require("../package.json") as { version: string }).version;
}
