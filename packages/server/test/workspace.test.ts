import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkWorkspace, confineWorkspaceRoots } from "../src/sessions/workspace.js";
import { adminSession, type ErrorBody, readJson, request, startTestServer, tempDataRoot } from "./helpers.js";

/** A root with a data folder, a project and a symlink of each kind inside it. */
async function layout() {
  const base = await tempDataRoot();
  const root = join(base, "home");
  const dataRoot = join(root, ".penguin", "data");
  const project = join(root, "project");
  await mkdir(join(dataRoot, "traces"), { recursive: true });
  await mkdir(project, { recursive: true });
  await writeFile(join(project, "file.txt"), "x");
  const outside = join(base, "elsewhere");
  await mkdir(join(outside, "exists"), { recursive: true });
  await symlink(outside, join(root, "escape"));
  await symlink(dataRoot, join(project, "data-link"));
  return { base, root, dataRoot, project, outside, roots: confineWorkspaceRoots([root], [dataRoot]) };
}

const message = async (path: string, roots: readonly string[]) => {
  const check = await checkWorkspace(path, roots);
  return check.ok ? `ok ${check.path}` : check.message;
};

describe("checkWorkspace", () => {
  it("refuses the data root, a folder inside it, a folder containing it, and a symlink into it", async () => {
    const l = await layout();
    expect(await message(l.dataRoot, l.roots)).toMatch(/is inside the server's data folder/);
    expect(await message(join(l.dataRoot, "traces"), l.roots)).toMatch(/is inside the server's data folder/);
    expect(await message(join(l.dataRoot, "missing"), l.roots)).toMatch(/is inside the server's data folder/);
    expect(await message(l.root, l.roots)).toMatch(/contains the server's data folder/);
    expect(await message(join(l.root, ".penguin"), l.roots)).toMatch(/contains the server's data folder/);
    expect(await message(join(l.project, "data-link"), l.roots)).toMatch(
      /is inside the server's data folder/,
    );
    expect(await message(join(l.project, "data-link", "traces"), l.roots)).toMatch(
      /is inside the server's data folder/,
    );
    // Next to the data root is fine.
    expect(await message(l.project, l.roots)).toBe(`ok ${l.project}`);
  });

  it("answers the same for existing and missing paths outside the roots", async () => {
    const l = await layout();
    const outsideMessage = /is outside the folders this server allows/;
    for (const path of [
      join(l.outside, "exists"),
      join(l.outside, "missing"),
      "/definitely/not/here",
      join(l.root, "escape", "exists"),
      join(l.root, "escape", "missing"),
      join(l.root, "escape", "missing", "deeper"),
      `${l.root}/../elsewhere/exists`,
    ]) {
      expect(await message(path, l.roots), path).toMatch(outsideMessage);
    }
  });

  it("reports missing paths and files only inside the roots", async () => {
    const l = await layout();
    expect(await message(join(l.project, "missing"), l.roots)).toMatch(/does not exist/);
    expect(await message(join(l.project, "file.txt"), l.roots)).toMatch(/is not a folder/);
    expect(await message("project", l.roots)).toMatch(/must be an absolute path/);
  });

  it("takes the forbidden folders as an argument too", async () => {
    const l = await layout();
    expect(await message(l.dataRoot, [l.root])).toBe(`ok ${l.dataRoot}`);
    const check = await checkWorkspace(l.dataRoot, [l.root], [dirname(l.dataRoot)]);
    expect(check).toMatchObject({
      ok: false,
      message: expect.stringMatching(/inside the server's data folder/),
    });
  });
});

describe("POST /api/sessions", () => {
  it("refuses the server's data root and its parent as a workspace", async () => {
    const base = await tempDataRoot();
    const dataRoot = join(base, "data");
    const server = await startTestServer({ dataRoot, workspaceRoots: [base] });
    const cookie = await adminSession(server);
    for (const [workspace, why] of [
      [dataRoot, /inside the server's data folder/],
      [join(dataRoot, "server"), /inside the server's data folder/],
      [base, /contains the server's data folder/],
    ] as const) {
      const response = await request(server.url, "/api/sessions", { cookie, json: { workspace } });
      expect(response.status, workspace).toBe(400);
      expect(await readJson<ErrorBody>(response), workspace).toMatchObject({
        error: "invalid_workspace",
        message: expect.stringMatching(why),
      });
    }
  });
});
