import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { EXIT_COMPLETED, EXIT_USAGE } from "../src/exit-codes.js";
import { HELP_WIDTH } from "../src/help-width.js";
import { LIGHT_OUTPUT_FILE, type LightStreams, printLightOutput } from "../src/launch/light-output.js";
import { CLI_BIN, penguin, tempDir } from "./helpers.js";
import { visible } from "./pty.js";

const RUN_CLI = join(CLI_BIN, "..", "run-cli.js");

/** The same command line through commander and the command tree, as before the build's file. */
async function throughCommander(args: string[]) {
  const entry = join(tempDir("commander"), "entry.mjs");
  writeFileSync(entry, `import { runCli } from ${JSON.stringify(RUN_CLI)};\nrunCli();\n`);
  const r = await execa(process.execPath, [entry, ...args], { env: { NO_COLOR: "1" }, reject: false });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `penguin` on a pseudo-terminal of the given width; what it printed, as the terminal shows it. */
async function onTerminal(columns: number, args: string[]): Promise<string> {
  const command = `stty cols ${columns} rows 40; exec ${[process.execPath, CLI_BIN, ...args].join(" ")}`;
  const r = await execa("script", ["-qfec", command, "/dev/null"], {
    env: { NO_COLOR: "1", TERM: "xterm" },
    stdin: "ignore",
    reject: false,
    timeout: 30_000,
  });
  return visible(String(r.stdout));
}

describe("penguin --version and --help from the build's file", () => {
  test("print what commander and the command tree print, with the same exit codes", async () => {
    for (const args of [["--version"], ["-V"], ["--help"], ["-h"], ["help"], []]) {
      const [built, commander] = await Promise.all([penguin(args), throughCommander(args)]);
      expect(built, args.join(" ") || "(no arguments)").toEqual(commander);
    }
    // The build writes the version in (src/version.ts): it is the package's.
    const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8"));
    expect((await penguin(["--version"])).stdout.trim()).toBe(packageJson.version);
    const help = await penguin(["--help"]);
    expect(help.stdout).toContain("Usage: penguin [options] [command]");
    expect(help.stdout).toContain("run [options]");
    expect((await penguin([])).exitCode).toBe(EXIT_USAGE);
  });

  test("a terminal at least as wide as the built help gets it; a narrower one gets help wrapped to its width", async () => {
    const wide = await onTerminal(132, ["--help"]);
    expect(wide.trimEnd()).toBe((await penguin(["--help"])).stdout.trimEnd());
    const narrow = await onTerminal(50, ["--help"]);
    expect(narrow).toContain("Usage: penguin [options] [command]");
    expect(narrow).toContain("run [options]");
    // Commander wraps the description to the terminal (a command's column it leaves whole when
    // too little width is left beside it).
    const description = narrow.slice(0, narrow.indexOf("Options:")).split("\n");
    expect(Math.max(...description.map((line) => line.length))).toBeLessThanOrEqual(50);
    expect(description.filter((line) => line.trim() !== "").length).toBeGreaterThan(2);
  });
});

describe("printLightOutput", () => {
  const capture = (stdoutTerminal?: number): LightStreams & { out: string[]; err: string[] } => {
    const out: string[] = [];
    const err: string[] = [];
    const tty = stdoutTerminal === undefined ? {} : { isTTY: true, columns: stdoutTerminal };
    return {
      out,
      err,
      stdout: { ...tty, write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
    };
  };
  const distWith = (content: string | undefined) => {
    const dir = tempDir("light");
    if (content !== undefined) writeFileSync(join(dir, LIGHT_OUTPUT_FILE), content);
    return dir;
  };
  const GOOD = JSON.stringify({ version: "1.2.3", help: "Usage: penguin\n" });

  test("the version and the help on stdout, no arguments on stderr with the usage code", () => {
    const dir = distWith(GOOD);
    const version = capture();
    expect(printLightOutput("version", dir, version)).toBe(EXIT_COMPLETED);
    expect(version.out).toEqual(["1.2.3\n"]);
    const help = capture(HELP_WIDTH + 40);
    expect(printLightOutput("help", dir, help)).toBe(EXIT_COMPLETED);
    expect(help.out).toEqual(["Usage: penguin\n"]);
    const none = capture();
    expect(printLightOutput("usage", dir, none)).toBe(EXIT_USAGE);
    expect(none).toMatchObject({ out: [], err: ["Usage: penguin\n"] });
  });

  test("a missing or broken file, or a narrower terminal, leaves the answer to commander and prints nothing", () => {
    for (const content of [undefined, "{ torn", JSON.stringify({ version: "1.2.3" }), "null"]) {
      const streams = capture();
      expect(printLightOutput("help", distWith(content), streams), String(content)).toBeUndefined();
      expect(streams.out).toEqual([]);
    }
    const narrow = capture(HELP_WIDTH - 1);
    expect(printLightOutput("help", distWith(GOOD), narrow)).toBeUndefined();
    expect(narrow.out).toEqual([]);
    // The version is one line at any width.
    expect(printLightOutput("version", distWith(GOOD), narrow)).toBe(EXIT_COMPLETED);
  });
});
