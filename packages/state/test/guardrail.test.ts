import { describe, expect, it } from "vitest";
import { DEFAULT_GUARDRAIL_RULES, matchGuardrail } from "../src/index.js";

describe("default guardrail rules", () => {
  it.each([
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
    [":(){ :", "fork-bomb"],
    [":(){ :|:& };:", "fork-bomb"],
  ])("denies %j (%s)", (command, rule) => {
    expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, command)?.name).toBe(rule);
  });

  it.each([
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
  ])("allows %j", (command) => {
    expect(matchGuardrail(DEFAULT_GUARDRAIL_RULES, command)).toBeUndefined();
  });
});
