import { describe, expect, it } from "vitest";
import { DEFAULT_GUARDRAIL_RULES, matchGuardrail, mightMatchGuardrail } from "../src/index.js";

describe("default guardrail rules", () => {
  const denied = [
    ["rm -rf /", "rm-rootish"],
    ["rm -rf /*", "rm-rootish"],
    ["sudo rm -fr / ", "rm-rootish"],
    ["rm -r -f ~", "rm-rootish"],
    ["rm -rf ~/", "rm-rootish"],
    ["rm -Rf $HOME", "rm-rootish"],
    ['rm -rf "$HOME"/*', "rm-rootish"],
    ["rm --recursive --force /usr", "rm-rootish"],
    ["rm -rf /etc/", "rm-rootish"],
    ["rm -rf --no-preserve-root /", "rm-rootish"],
    ["rm --no-preserve-root -r x", "rm-no-preserve-root"],
    ["dd if=/dev/zero of=/dev/sda bs=1M", "disk-write-dd"],
    ["sudo dd if=img of=/dev/nvme0n1", "disk-write-dd"],
    ["cat image > /dev/sdb", "disk-write-redirect"],
    ["mkfs.ext4 /dev/sdb1", "mkfs"],
    ["sudo mkfs -t xfs /dev/vdb", "mkfs"],
    ["FOO=1 sudo -E rm -rf /", "rm-rootish"],
    ["env -i rm -r ~/*", "rm-rootish"],
    ["/bin/rm -rf /", "rm-rootish"],
    ["/usr/bin/rm -rf ~", "rm-rootish"],
    ["./rm -rf /etc", "rm-rootish"],
    ["sudo -u root rm -rf /", "rm-rootish"],
    ["sudo -uroot -E rm -rf /", "rm-rootish"],
    ["sudo --user root --preserve-env rm -rf /", "rm-rootish"],
    ["sudo --user=root -- rm -rf /", "rm-rootish"],
    ["/usr/bin/sudo -u root /bin/rm -rf /", "rm-rootish"],
    ["sudo -E rm -rf /", "rm-rootish"],
    ["doas -u root rm -rf /", "rm-rootish"],
    ["env rm -rf /", "rm-rootish"],
    ["env -u HOME A=1 B=2 rm -rf ~", "rm-rootish"],
    ["command rm -rf /", "rm-rootish"],
    ["nice rm -rf /", "rm-rootish"],
    ["nice -n 5 rm -rf /", "rm-rootish"],
    ["nohup rm -rf / &", "rm-rootish"],
    ["time -p rm -rf /", "rm-rootish"],
    ["exec rm -rf /", "rm-rootish"],
    ["timeout -s KILL 10 rm -rf /", "rm-rootish"],
    ["sudo -u root /sbin/mkfs.ext4 /dev/sdb1", "mkfs"],
    ["sudo -u root /bin/dd if=img of=/dev/sda", "disk-write-dd"],
    [":(){ :", "fork-bomb"],
    [":(){ :|:& };:", "fork-bomb"],
  ];
  it.each(denied)("denies %j (%s)", (command, rule) => {
    expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, command)?.name).toBe(rule);
  });

  const allowed = [
    "rm -rf ./build",
    "rm -rf node_modules dist",
    "rm -rf /tmp/penguin-test",
    "rm -rf /home/u/project/out",
    "rm -rf ~/project/build",
    "rm -f /",
    "rm -rf *",
    "rmdir /tmp/x",
    "dd if=/dev/zero of=./disk.img bs=1M count=10",
    "echo mkfs is dangerous",
    "echo rm -rf /",
    "man dd of=/dev/sda",
    "grep -r 'rm -rf' .",
    "ls > /dev/null",
    "npm run format",
    "/bin/rm -rf ./build",
    "sudo -u root rm -rf node_modules",
    "env A=1 rm -rf dist",
    "echo /bin/rm -rf /",
    "sudo -u root ls /",
    "nice -n 5 make -j4",
    "printf '%s' sudo rm -rf /",
  ];
  it.each(allowed)("allows %j", (command) => {
    expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, command)).toBeUndefined();
  });

  it("reads a long run of wrappers and options in one pass (a crafted command cannot stall it)", () => {
    // Each of these reads an option's argument as a wrapper or the other way round, so a pattern
    // open to both readings would try exponentially many of them before failing; this one answers
    // at once (a stall would show as this test timing out).
    for (const unit of ["sudo -u sudo -u sudo ", "nice -n 5 -n 5 ", "env -u env A=1 ", "sudo --user sudo "]) {
      expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, `${unit.repeat(500)}x`)).toBeUndefined();
      expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, `${unit.repeat(500)}rm -rf /`)?.name).toBe("rm-rootish");
    }
  });

  it("skips a default rule only where its pattern could not match: without the words it needs", () => {
    // The shortcut in front of each default pattern must never change a verdict: every command of
    // this file that a pattern matches holds one of that rule's words, and with the words taken
    // out no pattern matches any of them.
    const words = ["--no-preserve-root", "of=/dev/", "/dev/", "mkfs", "rm", "()"];
    const commands = [...denied.map(([command]) => command), ...allowed];
    for (const rule of DEFAULT_GUARDRAIL_RULES) {
      const pattern = new RegExp(rule.pattern);
      for (const command of commands) {
        if (pattern.test(command))
          expect(mightMatchGuardrail(rule, command), `${rule.name}: ${command}`).toBe(true);
        const without = words.reduce((text, word) => text.replaceAll(word, " "), command);
        expect(mightMatchGuardrail(rule, without), without).toBe(false);
        expect(pattern.test(without), `${rule.name}: ${without}`).toBe(false);
      }
    }
  });

  it("always tries a project's own rule, even one named like a default rule", () => {
    const own = { name: "rm-rootish", pattern: "^echo", action: "deny" as const, message: "no echo" };
    expect(mightMatchGuardrail(own, "echo hi")).toBe(true);
    expect(matchGuardrail([own], "echo hi")?.message).toBe("no echo");
  });
});
