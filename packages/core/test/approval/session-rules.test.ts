// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is a parameter expansion
import { toolCall } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { SessionRules } from "../../src/approval/session-rules.js";

const exec = (cmd: string) => toolCall("exec_command", { cmd }, "c");

describe("session rules", () => {
  it("a tool rule allows every call of that tool only", () => {
    const rules = new SessionRules();
    rules.add({ tool: "write_file" });
    expect(rules.match(toolCall("write_file", {}, "c"))).toBe("tool write_file");
    expect(rules.match(exec("ls"))).toBeUndefined();
  });

  it("a command prefix matches whole words, not characters", () => {
    const rules = new SessionRules();
    rules.add({ commandPrefix: "git status" });
    expect(rules.match(exec("git status --short"))).toBeDefined();
    expect(rules.match(exec("git statusx"))).toBeUndefined();
    expect(rules.match(exec("git"))).toBeUndefined();
  });

  it("never widens: every part of a compound command must match a rule", () => {
    const rules = new SessionRules();
    rules.add({ commandPrefix: "git status" });
    rules.add({ commandPrefix: "ls" });
    expect(rules.match(exec("git status && ls -la | ls"))).toBeDefined();
    expect(rules.match(exec("git status && rm -rf build"))).toBeUndefined();
    expect(rules.match(exec("git status $(rm x)"))).toBeUndefined();
    expect(rules.match(exec("ls; sh -c 'rm x'"))).toBeUndefined();
    expect(rules.match(exec(`ls "unterminated`))).toBeUndefined();
  });

  it("does not cover a command hidden in ${…} or $(( … )) behind an allowed prefix", () => {
    const rules = new SessionRules();
    rules.add({ commandPrefix: "echo" });
    expect(rules.match(exec("echo ${X:=$(rm -rf y)}"))).toBeUndefined();
    expect(rules.match(exec('echo "${X:-`touch p`}"'))).toBeUndefined();
    expect(rules.match(exec("echo $(( $(touch p) ))"))).toBeUndefined();
    expect(rules.match(exec("echo ${X:-${Y:-$(touch p)}}"))).toBeUndefined();
    expect(rules.match(exec("echo $(( 1 + 2 )) ${#HOME} ${PATH%%:*}"))).toBe('command prefix "echo"');
    // The nested command is a part of its own: allowed when a rule covers it too.
    rules.add({ commandPrefix: "date" });
    expect(rules.match(exec("echo ${X:-$(date)}"))).toBe('command prefix "date", "echo"');
  });

  it("a prefix does not cover a command that writes a file by redirection", () => {
    const rules = new SessionRules();
    rules.add({ commandPrefix: "ls" });
    expect(rules.match(exec("ls > ~/.bashrc"))).toBeUndefined();
    expect(rules.match(exec("ls 2>/dev/null"))).toBeDefined();
    expect(rules.match(exec("ls 2>&1"))).toBeDefined();
  });

  it("refuses a compound or empty prefix", () => {
    const rules = new SessionRules();
    expect(rules.add({ commandPrefix: "git status && rm x" })).toBe(false);
    expect(rules.add({ commandPrefix: "  " })).toBe(false);
    expect(rules.list()).toEqual([]);
  });
});
