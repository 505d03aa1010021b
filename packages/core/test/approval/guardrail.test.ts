// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is a parameter expansion
import { toolCall } from "@penguin/protocol";
import { DEFAULT_GUARDRAIL_RULES, type GuardrailRule } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { checkCommand, checkToolCall, commandTextOf } from "../../src/approval/guardrail.js";

const denied = (command: string) => checkCommand(DEFAULT_GUARDRAIL_RULES, command)?.rule.name;

describe("command guardrail", () => {
  it.each([
    ["rm -rf /", "rm-rootish"],
    ["rm -rf ~", "rm-rootish"],
    [`rm -rf "/"`, "rm-rootish"],
    ["ls && rm -rf /", "rm-rootish"],
    ["true || rm -fr /usr", "rm-rootish"],
    ["cat x | sudo rm -r /etc", "rm-rootish"],
    ["sh -c 'rm -rf /'", "rm-rootish"],
    [`bash -lc "cd /tmp; rm -rf /"`, "rm-rootish"],
    ["echo $(rm -rf /)", "rm-rootish"],
    ["(rm -rf /)", "rm-rootish"],
    [`sudo -u root sh -c "rm -rf /"`, "rm-rootish"],
    [`eval "rm -rf /"`, "rm-rootish"],
    ["echo ${X:-$(rm -rf /)}", "rm-rootish"],
    ["echo ${X:=${Y:-`rm -rf ~`}}", "rm-rootish"],
    ["echo $(( $(rm -rf /) + 1 ))", "rm-rootish"],
    ["(( n = $(rm -rf /) ))", "rm-rootish"],
    ["/bin/rm -rf /", "rm-rootish"],
    ["ls; /usr/bin/rm -rf ~", "rm-rootish"],
    ["sudo -u root rm -rf /", "rm-rootish"],
    ["sudo -E rm -rf /", "rm-rootish"],
    ["env FOO=1 rm -rf /", "rm-rootish"],
    ["command rm -rf /", "rm-rootish"],
    ["nice -n 10 rm -rf /", "rm-rootish"],
    ["cd / && nohup \\rm -rf / &", "rm-rootish"],
    ["dd if=/dev/zero of=/dev/sda", "disk-write-dd"],
    ["echo x >/dev/sda", "disk-write-redirect"],
    ["mkfs.ext4 /dev/sdb1", "mkfs"],
    [":(){ :|:& };:", "fork-bomb"],
  ])("denies %s (%s)", (command, rule) => {
    expect(denied(command)).toBe(rule);
  });

  it.each([
    `echo "rm -rf /"`,
    "echo 'rm -rf / && mkfs'",
    "rm -rf ./build",
    "rm -rf node_modules",
    "sudo -u root /bin/rm -rf ./build",
    "echo ${X:-rm -rf /}",
    "rm -rf /tmp/penguin-test",
    "git commit -m 'sh -c rm -rf /'",
    "grep -r 'rm -rf /' .",
    "ls -la /",
  ])("lets %s through", (command) => {
    expect(denied(command)).toBeUndefined();
  });

  it("checks exec_command's cmd and input_command's chars, and nothing of other tools", () => {
    const rules = DEFAULT_GUARDRAIL_RULES;
    expect(checkToolCall(rules, toolCall("exec_command", { cmd: "rm -rf /" }, "c1"))?.rule.name).toBe(
      "rm-rootish",
    );
    expect(
      checkToolCall(rules, toolCall("input_command", { process_id: "p", chars: "rm -rf ~\n" }, "c2")),
    ).toBeDefined();
    expect(
      checkToolCall(rules, toolCall("write_file", { file_path: "x", content: "rm -rf /" }, "c3")),
    ).toBeUndefined();
    expect(commandTextOf(toolCall("exec_command", '{"cmd": "rm -rf /"', "c4"))).toBeUndefined();
  });

  it("applies configured rules to every part and names the part that matched", () => {
    const rules: GuardrailRule[] = [
      { name: "no-push", pattern: "^git push", action: "deny", message: "No pushing." },
    ];
    const hit = checkCommand(rules, "git add . && git commit -m 'x' && git push origin main");
    expect(hit?.rule.name).toBe("no-push");
    expect(hit?.part).toBe("git push origin main");
    expect(checkCommand(rules, "echo 'git push'")).toBeUndefined();
  });

  it("a configured rule written for the bare command sees through wrappers, assignments and the folder", () => {
    const rules: GuardrailRule[] = [
      { name: "no-push", pattern: "^git push", action: "deny", message: "No pushing." },
    ];
    for (const command of [
      "sudo git push",
      "sudo -u deploy git push origin main",
      "GIT_TRACE=1 git push",
      "env -u HOME GIT_X=1 git push",
      "/usr/bin/git push",
      "nice -n 5 nohup git push",
      "timeout 10 git push",
    ]) {
      expect(checkCommand(rules, command)?.rule.name, command).toBe("no-push");
    }
    for (const command of ["echo git push", "git pull", "sudo git status", "grep 'git push' notes.md"]) {
      expect(checkCommand(rules, command), command).toBeUndefined();
    }
  });
});
