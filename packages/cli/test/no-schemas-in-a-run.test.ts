import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";

// A session's start and rounds build no zod schema: the protocol's and the configuration's are
// built on first use, the defaults of a config that sets nothing come from the build, and a
// config this build checked before is taken from its memo. Building them took some 35 ms of every
// `penguin run` before its first model request (docs/benchmarks.md, section 11). A copy of the
// built CLI counts the schemas zod makes (each runs the `ZodType` trait's initializer once) and
// writes the count at exit, only if there is one to write.

const PACKAGE = resolve(import.meta.dirname, "..");
const COUNT_FILE_ENV = "PENGUIN_TEST_SCHEMA_COUNT_FILE";
const ZOD_INIT = "function init(inst,def){if(inst._zod){";
const COUNTED_ZOD_INIT =
  'function init(inst,def){if(name==="ZodType"){if(globalThis.__schemasBuilt===void 0){globalThis.__schemasBuilt=0;' +
  `process.on("exit",()=>require("node:fs").writeFileSync(process.env.${COUNT_FILE_ENV},String(globalThis.__schemasBuilt)))}` +
  "globalThis.__schemasBuilt++}if(inst._zod){";

/** A copy of the built CLI whose bundle counts the zod schemas it builds; returns its `bin.cjs`. */
function countingCli(): string {
  const into = tempDir("counting-cli");
  const keep = (source: string) => !source.endsWith(".map") && !source.endsWith(".cache");
  cpSync(join(PACKAGE, "dist"), join(into, "dist"), { recursive: true, filter: keep });
  cpSync(join(PACKAGE, "package.json"), join(into, "package.json"));
  symlinkSync(join(PACKAGE, "node_modules"), join(into, "node_modules"));
  const bundle = join(into, "dist", "cli.cjs");
  const source = readFileSync(bundle, "latin1");
  expect(source.split(ZOD_INIT).length, "zod's schema initializer, once in the bundle").toBe(2);
  const counted = source.replace(ZOD_INIT, () => COUNTED_ZOD_INIT);
  writeFileSync(bundle, counted, "latin1");
  // The copy names itself by its own text, as a build does (the checked-config memo is keyed by it).
  const manifest = JSON.parse(readFileSync(join(into, "dist", "cli.cjs.json"), "utf8")) as { ascii: boolean };
  const sha256 = createHash("sha256").update(counted, "latin1").digest("hex");
  writeFileSync(
    join(into, "dist", "cli.cjs.json"),
    JSON.stringify({ sha256, ascii: manifest.ascii, cache: null }),
  );
  return join(into, "dist", "bin.cjs");
}

const startFake = fakeOpenAiPerTest("sk-test-no-schemas-0123456789");

describe("a session of the built CLI", () => {
  test("builds no zod schema at a first run, nor at a later one; an edited config is checked", async () => {
    const bin = countingCli();
    const rounds = [
      { tool_calls: [{ name: "exec_command", arguments: { description: "say hi", cmd: "echo hi" } }] },
      { text: "Done." },
    ];
    const { env, llm } = await startFake([...rounds, ...rounds, { text: "Checked." }]);
    const workspace = tempDir("ws");
    const run = async (label: string): Promise<number | undefined> => {
      const countFile = join(tempDir("count"), "schemas");
      const r = await execa(
        process.execPath,
        [bin, "run", "--model", "openai/fake-model", "-w", workspace, "-m", "hi"],
        { env: { NO_COLOR: "1", ...env, [COUNT_FILE_ENV]: countFile }, reject: false },
      );
      expect(r.exitCode, `${label}: ${r.stderr}`).toBe(0);
      return existsSync(countFile) ? Number(readFileSync(countFile, "utf8")) : undefined;
    };

    expect(await run("first run"), "schemas built by a first run").toBeUndefined();
    expect(await run("later run"), "schemas built by a later run").toBeUndefined();
    expect(llm.requests.length).toBe(4);

    // The probe counts: a config whose text changed is checked again, which builds the schemas.
    appendFileSync(join(env.PENGUIN_HOME, "agents", "default", "system_config.yaml"), "# edited\n");
    expect(await run("after an edit")).toBeGreaterThan(100);
  });
});
