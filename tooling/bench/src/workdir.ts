import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folders one benchmark works in, all under one temp folder that `cleanup` removes. */
export interface BenchDirs {
  root: string;
  /** An empty HOME: see `shellEnv`. */
  home: string;
  workspace: string;
  /** A Penguin data root (traces, scratchpads, agents). */
  dataRoot: string;
  /** `scratchpad/<session>/` for benchmarks that build an Environment directly. */
  scratchpad: string;
  cleanup(): void;
}

export function makeBenchDirs(name: string): BenchDirs {
  const root = mkdtempSync(join(tmpdir(), `penguin-bench-${name}-`));
  const dirs = {
    root,
    home: join(root, "home"),
    workspace: join(root, "workspace"),
    dataRoot: join(root, "data"),
    scratchpad: join(root, "scratchpad", "bench-session"),
  };
  for (const dir of [dirs.home, dirs.workspace, dirs.dataRoot, dirs.scratchpad])
    mkdirSync(dir, { recursive: true });
  return { ...dirs, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * The environment for shells on both sides of a comparison. `exec_command` runs a login shell
 * (`bash -lc`), which reads the user's profile; a slow one (pyenv, nvm) would dominate and
 * differ between machines, so HOME points to an empty folder and both sides start the same shell.
 */
export function shellEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home };
}

/**
 * Runs `run` with this process's HOME pointed at `home` (commands the harness starts inherit it,
 * so they read the same empty profile as the raw side), and puts the old HOME back after.
 */
export async function withHome<T>(home: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  }
}
