import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { build } from "esbuild";
import { describe, expect, test } from "vitest";

// The package runs in a browser (the web UI imports it): no Node module, no Node global.

const srcDir = fileURLToPath(new URL("../src", import.meta.url));
const entry = join(srcDir, "index.ts");
/** The only package that src/ may import; everything else is relative. */
const ALLOWED_PACKAGES = new Set(["zod"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const re of [
    /\bfrom\s+["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']/g,
    /^\s*import\s+["']([^"']+)["']/gm,
  ]) {
    for (const match of source.matchAll(re)) found.push(match[1]);
  }
  return found;
}

describe("browser safety", () => {
  const files = sourceFiles(srcDir);

  test("src/ imports only relative modules and zod", () => {
    expect(files.length).toBeGreaterThan(5);
    const offending = files.flatMap((file) =>
      importsOf(readFileSync(file, "utf8"))
        .filter((spec) => !spec.startsWith("./") && !ALLOWED_PACKAGES.has(spec))
        .map((spec) => `${file}: ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test("src/ uses no Node global (Buffer, process, require, __dirname)", () => {
    const nodeGlobal = /\b(Buffer|process|require|__dirname|__filename|setImmediate)\b/;
    const offending = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, i }))
        // Comments may talk about Node; code may not use it.
        .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && nodeGlobal.test(line))
        .map(({ line, i }) => `${file}:${i + 1}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });

  test("bundles for the browser and runs where no Node API exists", async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "penguinProtocol",
      write: false,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const code = result.outputFiles[0].text;

    // A bare V8 context: ECMAScript built-ins only, no process, Buffer, require or module.
    const sandbox: Record<string, unknown> = {};
    runInNewContext(
      `${code}\nthis.result = (() => {
      const p = penguinProtocol;
      const parsed = p.parseEnvelopeLine(JSON.stringify(p.toolCall("exec_command", { cmd: "ls" }, "c1")));
      const bad = p.parseEnvelopeLine("{not json");
      const agg = new p.PartialAggregator();
      const built = p.splitIntoPartials(p.assistantText("héllo 😀"), 2).flatMap((m) => agg.push(m));
      return { parsed: parsed.ok, bad: bad.ok, text: built[0].payload.text, noProcess: typeof process };
    })();`,
      sandbox,
    );
    expect(sandbox.result).toEqual({ parsed: true, bad: false, text: "héllo 😀", noProcess: "undefined" });
  });

  test("the stream entry bundles without zod, small, and follows a stream on its own", async () => {
    const result = await build({
      entryPoints: [join(srcDir, "stream.ts")],
      bundle: true,
      minify: true,
      platform: "browser",
      format: "iife",
      globalName: "penguinStream",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0].text;
    // The point of the entry: a page that follows streams does not download the schemas.
    expect(code).not.toMatch(/zod|ZodObject/i);
    expect(code.length).toBeLessThan(20_000);
    const sandbox: Record<string, unknown> = {};
    runInNewContext(
      `${code}\nthis.result = (() => {
      const agg = new penguinStream.PartialAggregator();
      const partial = (event_type, output) => ({ type: "model_msg", payload: { type: "partial_tool_call_output", event_type, tool_call_id: "c1", output } });
      agg.push(partial("start", ""));
      agg.push(partial("delta", "par"));
      agg.push(partial("delta", "tial"));
      const open = agg.snapshot().map((s) => s.content);
      const description = penguinStream.readStreamingArgument('{"description": "Run the te', "description");
      return { open, description };
    })();`,
      sandbox,
    );
    expect(sandbox.result).toEqual({
      open: ["partial"],
      description: { value: "Run the te", complete: false },
    });
  });
});
