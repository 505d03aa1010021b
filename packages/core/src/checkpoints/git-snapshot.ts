import { execFile } from "node:child_process";
import { lstat, readlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { sha256File } from "../tools/files/hashes.js";

// git's view of a workspace at one moment, for the files commands change (which the file tools
// never see): HEAD, and every path `git status` lists with its status and an identity of what is
// on disk there. Two snapshots, before a task's first command and at its end, tell which paths
// changed in between. git runs with an argv (never a shell), a timeout, no optional locks (it
// never takes the index lock a user's own git may be waiting for), and without inherited
// variables that would point it at another repository (a GIT_DIR set by a hook that runs Penguin).

/** A path `git status` lists: its two-letter status and what is on disk there. */
export interface PathMark {
  status: string;
  identity: string;
}

export interface GitSnapshot {
  tracked: "git";
  /** The work tree's root, spelled from the workspace's own path (as the file tools spell paths). */
  root: string;
  /** HEAD's commit; null in a repository without commits. */
  head: string | null;
  /** Path relative to the root (as git prints it) → its mark. */
  paths: Map<string, PathMark>;
}

export type WorkspaceSnapshot = GitSnapshot | { tracked: "none"; reason: string };

/** Past this size a file's identity is its size and mtime: hashing it would cost too much. */
export const IDENTITY_HASH_LIMIT = 8 * 1024 * 1024;
export const GIT_TIMEOUT_MS = 15_000;

type GitResult =
  | { ok: true; stdout: string }
  | { ok: false; code: number | string | undefined; stderr: string };

/** Runs git in `cwd` (argv, no shell); resolves with its output or why it failed. */
export function runGit(cwd: string, args: readonly string[], timeoutMs = GIT_TIMEOUT_MS): Promise<GitResult> {
  return new Promise((done) => {
    execFile(
      "git",
      [...args],
      { cwd, env: gitEnv(), timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (!error) return done({ ok: true, stdout });
        const code = (error as NodeJS.ErrnoException & { code?: number | string }).code;
        const killed = (error as { killed?: boolean }).killed === true;
        done({ ok: false, code: killed ? "ETIMEDOUT" : code, stderr: String(stderr ?? "") });
      },
    );
  });
}

/** Variables that point git at another repository, index or object store than the workspace's. */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/** The caller's environment, less what would make git look at another repository than the workspace's. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  // Never the index lock; never a prompt for credentials; messages in one language.
  return { ...env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
}

const NOT_A_REPOSITORY = "the workspace is not a git repository";

function untracked(result: GitResult & { ok: false }): { tracked: "none"; reason: string } {
  if (result.code === "ENOENT") return { tracked: "none", reason: "git is not installed" };
  if (result.code === "ETIMEDOUT") return { tracked: "none", reason: "git did not answer in time" };
  if (/not a git repository/i.test(result.stderr)) return { tracked: "none", reason: NOT_A_REPOSITORY };
  const first = result.stderr.trim().split("\n")[0] ?? "";
  return { tracked: "none", reason: `git failed${first ? `: ${first}` : ""}` };
}

/**
 * Whether git could find a work tree for `dir`: a `.git` (a folder, or the file of a linked work
 * tree or submodule) in it or a folder above. git runs here with none of the variables that point
 * it elsewhere (gitEnv), so without one it finds no work tree: the answer is known without
 * starting git (a fork of this process, some 4 ms of its main thread, and git's own start, on the
 * way to a task's first command). Anything but "not there" is left to git to judge.
 */
async function mayBeInsideWorkTree(dir: string): Promise<boolean> {
  for (let folder = resolve(dir); ; folder = dirname(folder)) {
    try {
      await lstat(join(folder, ".git"));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return true;
    }
    if (dirname(folder) === folder) return false;
  }
}

/** git's view of the work tree `dir` is in, now. */
export async function takeSnapshot(dir: string): Promise<WorkspaceSnapshot> {
  if (!(await mayBeInsideWorkTree(dir))) return { tracked: "none", reason: NOT_A_REPOSITORY };
  const where = await runGit(dir, ["rev-parse", "--is-inside-work-tree", "--show-prefix"]);
  if (!where.ok) return untracked(where);
  const [inside, prefix = ""] = where.stdout.split("\n");
  if (inside !== "true") return { tracked: "none", reason: NOT_A_REPOSITORY };
  // The root, from the workspace's own spelling of its path: up one level per folder of the prefix.
  const depth = prefix.split("/").filter((part) => part !== "").length;
  const root = resolve(dir, ...Array.from({ length: depth }, () => ".."));
  const head = await runGit(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  const status = await runGit(root, [
    "-c",
    "core.fsmonitor=false",
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=none",
  ]);
  if (!status.ok) return untracked(status);
  const paths = new Map<string, PathMark>();
  for (const [path, code] of parseStatus(status.stdout))
    paths.set(path, { status: code, identity: await identityOf(join(root, path)) });
  return { tracked: "git", root, head: head.ok ? head.stdout.trim() || null : null, paths };
}

/**
 * `git status --porcelain=v1 -z`: `XY path\0`, and for a rename or copy `XY to\0from\0`. The
 * source of a rename is listed too (its status marked `<-`): it changed as much as the target.
 * (A copy's source is unchanged.)
 */
export function parseStatus(output: string): Array<[string, string]> {
  const fields = output.split("\0");
  const found: Array<[string, string]> = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    found.push([trimSlash(field.slice(3)), code]);
    if (code.includes("R") || code.includes("C")) {
      i += 1;
      const from = fields[i];
      // A copy leaves its source as it was; a rename takes it away.
      if (from && code.includes("R")) found.push([trimSlash(from), `${code}<-`]);
    }
  }
  return found;
}

/** A nested repository is listed as `dir/`. */
const trimSlash = (path: string) => (path.endsWith("/") ? path.slice(0, -1) : path);

/** What is at `path`: its content's hash (size and mtime past the limit), a link's target, or a kind. */
export async function identityOf(path: string): Promise<string> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return `symlink:${await readlink(path)}`;
    if (info.isDirectory()) return "directory";
    if (!info.isFile()) return "special";
    const mode = (info.mode & 0o777).toString(8);
    if (info.size > IDENTITY_HASH_LIMIT) return `large:${info.size}:${info.mtimeMs}:${mode}`;
    return `file:${(await sha256File(path)) ?? "unreadable"}:${mode}`;
  } catch {
    return "absent";
  }
}

/** The paths the commits between `from` and `to` changed (a command that committed its change), with git's letter (A, D, M, T). */
export async function committedPaths(root: string, from: string, to: string): Promise<Map<string, string>> {
  const diff = await runGit(root, ["diff", "--name-status", "--no-renames", "-z", from, to, "--"]);
  const found = new Map<string, string>();
  if (!diff.ok) return found;
  // `-z --name-status`: `letter\0path\0` for each path.
  const fields = diff.stdout.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const letter = fields[i] ?? "";
    const path = fields[i + 1] ?? "";
    if (letter !== "" && path !== "") found.set(path, letter);
  }
  return found;
}
