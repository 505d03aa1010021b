import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

// A workspace's tree as plain data (every path with its kind, mode and content), to compare a
// tree before a task and after its revert byte for byte, modes included.

export type Tree = Record<string, string>;

export function treeOf(root: string): Tree {
  const tree: Tree = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const at = rel === "" ? name : `${rel}/${name}`;
      const info = lstatSync(path);
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isSymbolicLink()) tree[at] = `link -> ${readlinkSync(path)}`;
      else if (info.isDirectory()) {
        tree[at] = `dir ${mode}`;
        walk(path, at);
      } else tree[at] = `file ${mode} ${readFileSync(path).toString("base64")}`;
    }
  };
  walk(root, "");
  return tree;
}

/** Writes `files` (relative path → content) under `root`, with `modes` where given. */
export function writeTree(
  root: string,
  files: Record<string, string | Buffer>,
  modes: Record<string, number> = {},
) {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    if (modes[rel] !== undefined) chmodSync(path, modes[rel]);
  }
}

export const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  name,
  arguments: args,
});
