import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// Which modules of the one-file CLI (`dist/cli.cjs`) a run evaluated. The build wraps every module
// it inlines in a function named by the module's path, called the first time the module is needed
// (as an `import` would load it), so V8's coverage of the process (`NODE_V8_COVERAGE`) names the
// modules that ran: the functions with such a name and a call count above zero.

interface FunctionCoverage {
  functionName: string;
  ranges: { count: number }[];
}

interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

/** A module path as the build names its wrappers: `../../node_modules/…/x.js`, `src/main.ts`. */
const MODULE_PATH = /\/|\.(?:[cm]?[jt]sx?|json)$/;

export function bundleModulesRun(coverageDir: string): string[] {
  const modules = new Set<string>();
  let files: string[];
  try {
    files = readdirSync(coverageDir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  for (const name of files) {
    const { result } = JSON.parse(readFileSync(join(coverageDir, name), "utf8")) as {
      result: ScriptCoverage[];
    };
    for (const script of result) {
      if (!script.url.endsWith("/dist/cli.cjs")) continue;
      for (const fn of script.functions) {
        if ((fn.ranges[0]?.count ?? 0) > 0 && MODULE_PATH.test(fn.functionName)) modules.add(fn.functionName);
      }
    }
  }
  return [...modules];
}
