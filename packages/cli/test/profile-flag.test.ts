import { accessSync, constants, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

// `--profile` on run and chat: the execution profile a new session's tools run under.

const BWRAP_MISSING = !(process.env.PATH ?? "").split(":").some((dir) => {
  try {
    accessSync(join(dir, "bwrap"), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

/** A fresh HOME holding a secret, a workspace, a data root, and a cassette that cats the secret. */
function setup() {
  const home = tempDir("home");
  const secret = join(home, "secret.txt");
  writeFileSync(secret, "host secret\n");
  const workspace = tempDir("ws");
  const cassette = join(tempDir("cassette"), "cat.yaml");
  const call = {
    name: "exec_command",
    arguments: { description: "read", cmd: `cat ${secret} || echo hidden` },
  };
  writeFileSync(cassette, stringify({ version: 1, turns: [{ tool_calls: [call] }, { text: "done" }] }));
  const dataRoot = tempDir("data");
  mkdirSync(dataRoot, { recursive: true });
  return { env: { HOME: home, PENGUIN_HOME: dataRoot }, workspace, cassette, dataRoot };
}

describe("penguin run --profile", () => {
  test.skipIf(BWRAP_MISSING)("sandbox runs the commands in the sandbox and records the profile", async () => {
    const s = setup();
    const r = await penguin(
      [
        "run",
        "--model",
        `replay:${s.cassette}`,
        "-w",
        s.workspace,
        "--profile",
        "sandbox",
        "--json",
        "-m",
        "read",
      ],
      { env: s.env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("hidden");
    expect(r.stdout).not.toContain("host secret");
    const [trace] = traceFiles(s.dataRoot);
    const meta = readJsonLines(trace!)[0]!;
    expect(meta.payload.execution_profile).toBe("sandbox");
  });

  test("without the flag, the session runs natively and says so in its session_meta", async () => {
    const s = setup();
    const r = await penguin(
      ["run", "--model", `replay:${s.cassette}`, "-w", s.workspace, "--json", "-m", "read"],
      {
        env: s.env,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("host secret");
    const [trace] = traceFiles(s.dataRoot);
    expect(readJsonLines(trace!)[0]!.payload.execution_profile).toBe("native");
  });

  test("an unknown profile is one line naming the profiles (exit 2), and nothing runs", async () => {
    const s = setup();
    const r = await penguin(
      ["run", "--model", `replay:${s.cassette}`, "-w", s.workspace, "--profile", "jail", "-m", "x"],
      {
        env: s.env,
      },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      'penguin: unknown execution profile "jail"; the profiles are: native, sandbox',
    );
  });

  test.each(["run", "chat"])(
    "%s --resume with --profile is a usage error: the session keeps its own",
    async (command) => {
      const s = setup();
      const prompt = command === "run" ? ["-m", "hi"] : [];
      const r = await penguin(
        [command, "--resume", "20990101-000000-abcdef", "--profile", "sandbox", ...prompt],
        {
          env: s.env,
        },
      );
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim()).toBe(
        "penguin: --profile cannot be used with --resume: a resumed session keeps its own execution profile",
      );
    },
  );
});
