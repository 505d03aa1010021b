import { createHash } from "node:crypto";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A copy of the built CLI whose one-file bundle (`dist/cli.cjs`) times the first evaluation of
 * each of its modules. The bundler wraps every module that is not evaluated at the bundle's start
 * in `__esm` (ES modules) or `__commonJS` (CommonJS): the copy's helpers time each wrapped module,
 * less the modules it evaluates in turn, and counts the zod schemas each builds; it writes both
 * (ModuleTimes) to the file named by MODULE_TIMES_ENV as the first model request is created
 * (node:http's `http.client.request.start`, which the provider SDKs' requests go through).
 */
export const MODULE_TIMES_ENV = "PENGUIN_BENCH_MODULE_TIMES";

/** The bundler's helpers as the start-up build writes them (whitespace and syntax minified). */
const ESM_HELPER =
  "var __esm=(fn,res)=>function(){return fn&&(res=(0,fn[__getOwnPropNames(fn)[0]])(fn=0)),res};";
const COMMONJS_HELPER =
  "var __commonJS=(cb,mod)=>function(){return mod||(0,cb[__getOwnPropNames(cb)[0]])((mod={exports:{}}).exports,mod),mod.exports};";

/**
 * Where zod's classic schemas are made: the copy counts the schemas each module builds (a schema
 * runs the `ZodType` trait's initializer once).
 */
const ZOD_INIT = "function init(inst,def){if(inst._zod){";
const COUNTED_ZOD_INIT =
  'function init(inst,def){if(name==="ZodType"&&!__benchInit.done){const by=__benchInit.current;__benchInit.schemas.set(by,(__benchInit.schemas.get(by)??0)+1)}if(inst._zod){';

/** What the copy writes: each module's own milliseconds, and the zod schemas each module built. */
export interface ModuleTimes {
  ms: Array<[string, number]>;
  schemas: Array<[string, number]>;
}

/** The same helpers, timed: each keeps its module's guard (set before the module runs). */
const TIMED_HELPERS = [
  'var __benchInit={stack:[],self:new Map(),schemas:new Map(),current:"(the bundle\'s start)",done:false};',
  "var __benchTimed=(name,run)=>{if(__benchInit.done)return run();const start=performance.now();__benchInit.stack.push(0);",
  "const outer=__benchInit.current;__benchInit.current=name;",
  "try{return run()}finally{__benchInit.current=outer;const took=performance.now()-start;const inner=__benchInit.stack.pop();",
  "__benchInit.self.set(name,(__benchInit.self.get(name)??0)+took-inner);",
  "if(__benchInit.stack.length>0)__benchInit.stack[__benchInit.stack.length-1]+=took}};",
  'require("node:diagnostics_channel").subscribe("http.client.request.start",()=>{if(__benchInit.done)return;__benchInit.done=true;',
  `require("node:fs").writeFileSync(process.env.${MODULE_TIMES_ENV},JSON.stringify({ms:[...__benchInit.self],schemas:[...__benchInit.schemas]}))});`,
  "var __esm=(fn,res)=>function(){if(!fn)return res;const name=__getOwnPropNames(fn)[0];const init=fn[name];fn=0;",
  "res=__benchTimed(name,()=>init(0));return res};",
  "var __commonJS=(cb,mod)=>function(){if(mod)return mod.exports;const name=__getOwnPropNames(cb)[0];",
  "mod={exports:{}};__benchTimed(name,()=>cb[name](mod.exports,mod));return mod.exports};",
].join("");

/**
 * Copies the CLI package of `bin` (its `dist/bin.cjs`) into `into` with a timed bundle, and returns
 * the copy's `bin.cjs`. The copy's manifest names the timed bundle and ships no code cache: the
 * launcher makes one in the user's cache folder at the copy's first run.
 */
export function makeTimedCli(bin: string, into: string): string {
  const dist = dirname(bin);
  const pkg = dirname(dist);
  // Source maps and the shipped code cache (made for the untimed bundle) are of no use to the copy.
  const needed = (source: string) => !source.endsWith(".map") && !source.endsWith(".cache");
  cpSync(dist, join(into, "dist"), { recursive: true, filter: needed });
  cpSync(join(pkg, "package.json"), join(into, "package.json"));
  symlinkSync(join(pkg, "node_modules"), join(into, "node_modules"));
  const bundleFile = join(into, "dist", "cli.cjs");
  const source = readFileSync(bundleFile, "latin1");
  for (const [text, what] of [
    [ESM_HELPER, "the bundler's __esm helper"],
    [COMMONJS_HELPER, "the bundler's __commonJS helper"],
    [ZOD_INIT, "zod's schema initializer"],
  ] as const) {
    if (source.split(text).length !== 2)
      throw new Error(`${bundleFile}: ${what} is not where this benchmark looks`);
  }
  // Functions as replacements: a string one would read `$&` and the like as patterns.
  const timed = source
    .replace(ESM_HELPER, () => TIMED_HELPERS)
    .replace(COMMONJS_HELPER, () => "")
    .replace(ZOD_INIT, () => COUNTED_ZOD_INIT);
  writeFileSync(bundleFile, timed, "latin1");
  const manifestFile = join(into, "dist", "cli.cjs.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { ascii: boolean };
  const sha256 = createHash("sha256").update(timed, "latin1").digest("hex");
  writeFileSync(manifestFile, JSON.stringify({ sha256, ascii: manifest.ascii, cache: null }));
  return join(into, "dist", "bin.cjs");
}

/**
 * A module's name in a bundle, shorter: `@penguin/state` for a workspace package's build
 * (`../state/dist/index.js`), the path inside its package for a library.
 */
export function moduleLabel(name: string): string {
  const workspace = /^\.\.\/([a-z-]+)\/dist\/index\.js$/.exec(name);
  if (workspace) return `@penguin/${workspace[1]}`;
  const library = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(.+)$/.exec(name);
  return library ? (library[1] ?? name) : name;
}
