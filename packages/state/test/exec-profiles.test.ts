import { describe, expect, it } from "vitest";
import {
  type ConfigError,
  chooseExecutionProfile,
  formatConfigError,
  isFullHostAccess,
  parseSystemConfig,
  type SystemConfig,
} from "../src/index.js";

function parsed(text: string): SystemConfig {
  const result = parseSystemConfig(text, "system_config.yaml");
  if (!result.ok) throw new Error(result.errors.map(formatConfigError).join("\n"));
  return result.config;
}

function errorsOf(text: string): ConfigError[] {
  const result = parseSystemConfig(text, "system_config.yaml");
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors;
}

describe("exec.profile and exec.profiles", () => {
  it("default to the native profile, with native and sandbox built in", () => {
    const config = parsed("");
    expect(config.exec.profile).toBe("native");
    expect(config.exec.profiles).toEqual({});
    const sandbox = chooseExecutionProfile(config.exec.profiles, "sandbox");
    expect(sandbox).toMatchObject({ ok: true, profile: { kind: "sandbox", network: false } });
    const native = chooseExecutionProfile(config.exec.profiles, "native");
    expect(native).toMatchObject({ ok: true, profile: { kind: "native" } });
  });

  it("read a profile of the config with its paths and limits, and let it be the default", () => {
    const config = parsed(`exec:
  profile: build
  profiles:
    build:
      kind: sandbox
      network: true
      read_only_paths: [/opt/tools]
      writable_paths: [/var/cache/build]
      hidden_paths: [/etc/secrets]
      limits: { memory_mb: 2048, processes: 512, file_size_mb: 100, cpu_seconds: 600 }
`);
    expect(config.exec.profile).toBe("build");
    expect(config.exec.profiles.build).toEqual({
      kind: "sandbox",
      network: true,
      read_only_paths: ["/opt/tools"],
      writable_paths: ["/var/cache/build"],
      hidden_paths: ["/etc/secrets"],
      limits: { memory_mb: 2048, processes: 512, file_size_mb: 100, cpu_seconds: 600 },
    });
  });

  it("refuse a default profile that no config defines, naming the ones there are", () => {
    const [error] = errorsOf("exec:\n  profile: jail\n");
    expect(error.path).toBe("exec.profile");
    expect(error.message).toBe('unknown execution profile "jail"; the profiles are: native, sandbox');
  });

  it("point at a wrong kind, a relative path, a bad limit and an unknown field", () => {
    const errors = errorsOf(`exec:
  profiles:
    a:
      kind: docker
    b:
      kind: sandbox
      writable_paths: [build]
      limits: { memory_mb: 0, threads: 4 }
`);
    const byPath = Object.fromEntries(errors.map((error) => [error.path, error.message]));
    expect(byPath["exec.profiles.a.kind"]).toMatch(/"native"\|"sandbox"/);
    expect(byPath["exec.profiles.b.writable_paths[0]"]).toBe("must be an absolute path");
    expect(byPath["exec.profiles.b.limits.memory_mb"]).toBe("memory_mb must be at least 1");
    expect(byPath["exec.profiles.b.limits.threads"]).toBe('unknown field "threads"');
  });

  it("refuse a profile name that a flag or a form could not carry", () => {
    const errors = errorsOf("exec:\n  profiles:\n    'My Profile':\n      kind: native\n");
    expect(errors[0].message).toMatch(/lowercase letters, digits/);
  });

  it("say which profiles amount to the host user's full access", () => {
    const config = parsed(`exec:
  profiles:
    open: { kind: sandbox, network: true, writable_paths: [/] }
    online: { kind: sandbox, network: true }
`);
    const flag = (name: string) => {
      const choice = chooseExecutionProfile(config.exec.profiles, name);
      return choice.ok && isFullHostAccess(choice.profile);
    };
    expect([flag("native"), flag("sandbox"), flag("open"), flag("online")]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(chooseExecutionProfile(config.exec.profiles, "nope")).toEqual({
      ok: false,
      error: 'unknown execution profile "nope"; the profiles are: native, sandbox, open, online',
    });
  });
});
