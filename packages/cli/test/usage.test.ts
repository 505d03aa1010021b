import { describe, expect, test } from "vitest";
import { penguin, tempDir } from "./helpers.js";

describe("usage errors exit with code 2 and one clear line", () => {
  test("--version prints the package version", async () => {
    const r = await penguin(["--version"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("a missing workspace", async () => {
    const r = await penguin(["run", "--model", "openai/x", "-w", "/nonexistent/penguin-ws", "-m", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/workspace .* is not an existing folder/);
  });

  test("an invalid model reference", async () => {
    const r = await penguin(["run", "--model", "gpt-5", "-w", tempDir("ws"), "-m", "hi"], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid model "gpt-5": use provider\/model-id/);
  });

  test("an unknown approval mode", async () => {
    const r = await penguin(["run", "--approve", "sometimes", "-w", tempDir("ws"), "-m", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown approval mode "sometimes"/);
  });

  test("no prompt", async () => {
    const r = await penguin(["run", "--model", "openai/x", "-w", tempDir("ws")]);
    expect({ code: r.exitCode, stderr: r.stderr }).toMatchObject({ code: 2 });
    expect(r.stderr).toMatch(/no task given/);
  });

  test("an unknown flag", async () => {
    const r = await penguin(["run", "--frobnicate"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown option/);
  });

  test("an unknown thinking level", async () => {
    const r = await penguin(["run", "--thinking", "extreme", "-w", tempDir("ws"), "-m", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown thinking level "extreme"/);
  });

  test("a budget that is not a positive number", async () => {
    const r = await penguin(["run", "--budget-tokens", "-3", "-w", tempDir("ws"), "-m", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--budget-tokens takes a positive whole number/);
  });

  test("an attachment that does not exist", async () => {
    const r = await penguin(["run", "--attach", "/nonexistent/pic.png", "-w", tempDir("ws"), "-m", "hi"], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot attach \/nonexistent\/pic.png: no such file/);
  });

  test("no model anywhere says how to choose one", async () => {
    const r = await penguin(["run", "-w", tempDir("ws"), "-m", "hi"], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^penguin: no model given .*default_model/);
    expect(r.stderr).not.toMatch(/internal error|at /);
  });

  test("resuming a session that does not exist", async () => {
    const r = await penguin(["run", "--resume", "20990101-000000-abcdef", "-m", "hi"], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no session 20990101-000000-abcdef/);
  });
});
