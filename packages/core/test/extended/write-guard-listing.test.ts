import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { definitionsOf, extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// What the write guard's notes tell the model about edit_file and apply_patch is what the guard
// does: a listing by list_files earlier in the task counts as well as a read.

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
  await writeFile(join(dirs.workspaceDir, "app.txt"), "one\ntwo\n");
});
afterEach(async () => {
  await dirs.cleanup();
});

const descriptionOf = (name: string) =>
  definitionsOf({ writeGuard: true }).find((d) => d.name === name)?.description ?? "";

describe("the write guard's notes for edit_file and apply_patch", () => {
  it("say that a listing by list_files counts as well as a read", () => {
    expect(descriptionOf("edit_file")).toContain(
      "The file must have been read with read_file (or listed by list_files) earlier in this task.",
    );
    expect(descriptionOf("apply_patch")).toContain(
      "must have been read with read_file (or listed by list_files) earlier in this task.",
    );
  });

  it("match the guard: after list_files, edit_file and apply_patch change the file without a read", async () => {
    const env = extendedEnvironment(dirs, { writeGuard: true });
    const before = await runCall(env, "edit_file", {
      file_path: "app.txt",
      old_string: "one",
      new_string: "1",
    });
    expect(before.complete.output).toContain("has not been read in this task");

    await runCall(env, "list_files", {});
    const edited = await runCall(env, "edit_file", {
      file_path: "app.txt",
      old_string: "one",
      new_string: "1",
    });
    expect(edited.complete.stop_reason).toBe("completed");
    const patched = await runCall(env, "apply_patch", {
      patch: "*** Begin Patch\n*** Update File: app.txt\n@@\n 1\n-two\n+2\n*** End Patch",
    });
    expect(patched.complete.stop_reason).toBe("completed");
    expect(await readFile(join(dirs.workspaceDir, "app.txt"), "utf8")).toBe("1\n2\n");
  });
});
