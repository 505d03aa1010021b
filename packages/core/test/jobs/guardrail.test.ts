import { toolCall } from "@penguin/protocol";
import { DEFAULT_GUARDRAIL_RULES } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/gate.js";
import { checkToolCall, commandTextOf } from "../../src/approval/guardrail.js";
import { allowAll } from "../../src/approval/policies.js";
import { SessionRules } from "../../src/approval/session-rules.js";

const run = (command: string, id = "r1") => toolCall("run_command", { purpose: "clean up", command }, id);
const gate = {
  guardrail: DEFAULT_GUARDRAIL_RULES,
  rules: new SessionRules(),
  permissionOf: (name: string) => (name === "run_command" ? ("rw" as const) : undefined),
};

describe("the command guardrail over run_command", () => {
  it("reads run_command's command text, not its purpose", () => {
    expect(commandTextOf(run("ls -la"))).toBe("ls -la");
    const innocentCommand = toolCall("run_command", { purpose: "never rm -rf /", command: "ls" }, "r2");
    expect(checkToolCall(DEFAULT_GUARDRAIL_RULES, innocentCommand)).toBeUndefined();
  });

  it("forbids a destructive command under allow-all, before any approval is asked", async () => {
    for (const command of ["rm -rf /", "make && sh -c 'rm -rf ~'", "mkfs.ext4 /dev/sdb1"]) {
      const outcome = await decideApproval(run(command), allowAll, gate);
      expect(outcome.decision, command).toBe("forbidden");
      expect(outcome.source.kind).toBe("guardrail");
    }
    expect((await decideApproval(run("rm -rf ./build"), allowAll, gate)).decision).toBe("allow");
  });
});
