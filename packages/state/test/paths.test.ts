import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  agentDir,
  dataPaths,
  isValidSessionId,
  logsDir,
  modelVisiblePath,
  projectConfigFile,
  resolveDataRoot,
  scratchpadDir,
  systemConfigFile,
  traceFile,
  tracesDir,
  truncatedOutputDir,
} from "../src/index.js";

describe("resolveDataRoot", () => {
  it("uses PENGUIN_HOME when it is set", () => {
    expect(resolveDataRoot({ PENGUIN_HOME: "/srv/penguin" }, "/home/u")).toBe("/srv/penguin");
  });

  it("falls back to ~/.penguin/data when PENGUIN_HOME is unset or blank", () => {
    expect(resolveDataRoot({}, "/home/u")).toBe(join("/home/u", ".penguin", "data"));
    expect(resolveDataRoot({ PENGUIN_HOME: "  " }, "/home/u")).toBe(join("/home/u", ".penguin", "data"));
  });

  it("expands a leading ~ and resolves relative paths", () => {
    expect(resolveDataRoot({ PENGUIN_HOME: "~/pg" }, "/home/u")).toBe(join("/home/u", "pg"));
    expect(resolveDataRoot({ PENGUIN_HOME: "rel/dir" }, "/home/u")).toBe(resolve("rel/dir"));
  });
});

describe("data layout", () => {
  const root = "/data";

  it("places each kind of file where the documented layout says", () => {
    expect(projectConfigFile(root)).toBe("/data/projects/default/project.yaml");
    expect(projectConfigFile(root, "web")).toBe("/data/projects/web/project.yaml");
    expect(systemConfigFile(root, "default")).toBe("/data/agents/default/system_config.yaml");
    expect(tracesDir(root)).toBe("/data/traces");
    expect(traceFile(root, "2026-11-30", "s1", 2)).toBe("/data/traces/2026-11-30/s1_002.jsonl");
    expect(scratchpadDir(root, "s1")).toBe("/data/scratchpad/s1");
    expect(truncatedOutputDir(root, "s1")).toBe("/data/scratchpad/s1/truncated-tool-output");
    expect(logsDir(root)).toBe("/data/logs");
    expect(dataPaths(root).truncatedOutputDir("s1")).toBe(truncatedOutputDir(root, "s1"));
  });

  it.each(["..", "../x", "a/b", "a\\b", ".hidden", "", "C:", "a b", "x".repeat(129), "s1\u0000"])(
    "rejects the id %j so it cannot leave its folder",
    (id) => {
      expect(isValidSessionId(id)).toBe(false);
      expect(() => scratchpadDir(root, id)).toThrow(/invalid session id/);
      expect(() => agentDir(root, id)).toThrow(/invalid agent id/);
    },
  );

  it("accepts ordinary ids (uuids, dated ids)", () => {
    for (const id of ["0b6f3c1e-9a1d-4c1e-8f43-5d2a7a1c9e10", "20261130_ab12", "default"]) {
      expect(isValidSessionId(id)).toBe(true);
    }
  });

  it("rejects malformed trace days and indexes", () => {
    expect(() => traceFile(root, "2026/11/30", "s1", 1)).toThrow(/yyyy-mm-dd/);
    expect(() => traceFile(root, "2026-11-30", "s1", 0)).toThrow(/index/);
  });
});

describe("modelVisiblePath", () => {
  it.each([
    ["/home/a b/x.txt", "linux", "/home/a b/x.txt"],
    ["/home/a\\b", "linux", "/home/a\\b"],
    ["relative/path", "linux", "relative/path"],
    ["C:\\Users\\a b\\x", "linux", "C:/Users/a b/x"],
    ["C:\\Users\\a b\\x", "win32", "C:/Users/a b/x"],
    ["c:/already/forward", "win32", "c:/already/forward"],
    ["\\\\?\\C:\\x\\y.txt", "win32", "C:/x/y.txt"],
    ["\\\\?\\UNC\\server\\share\\dir", "win32", "//server/share/dir"],
    ["\\\\.\\C:\\x", "win32", "C:/x"],
    ["\\\\server\\share\\a b\\f.txt", "win32", "//server/share/a b/f.txt"],
    ["\\\\server\\share\\x", "linux", "//server/share/x"],
    ["D:\\", "win32", "D:/"],
    ["sub\\dir\\file", "win32", "sub/dir/file"],
  ] as const)("%s on %s -> %s", (input, platform, expected) => {
    const visible = modelVisiblePath(input, platform);
    expect(visible).toBe(expected);
    expect(visible.startsWith("//?/")).toBe(false);
  });
});
