import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { readHookAnswer } from "../../src/hooks/hook-answer.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, payloadsOf, stack, toolMessage } from "./support.js";

// What a before-hook's stdout means: a hook must never fail open because its answer was cut short
// or written for another harness. Real hook processes, fake-llm over HTTP, allow-all (so only the
// hook can stop the call).

const start = cleanedUpAfterEach(stack);

const touch = (file: string, id = "c1") => ({
  id,
  name: "exec_command",
  arguments: { description: "make a file", cmd: `touch ${file}` },
});

/** Runs one turn in which the model calls `touch <file>` once per file, under allow-all. */
async function runWithHook(command: string, files: string[], onError?: "allow" | "deny") {
  const env = await start(
    [{ tool_calls: files.map((file, i) => touch(file, `c${i + 1}`)) }, { text: "done" }],
    { hooks: { before_tool: [{ name: "guard", command, ...(onError ? { on_error: onError } : {}) }] } },
  );
  const session = await env.session();
  const messages = await collect(session.run("Go.", { approve: allowAll }));
  await session.dispose();
  const made = (file: string) => existsSync(join(env.workspaceDir, file));
  return { env, messages, made, decisions: payloadsOf(messages, "approval_decision") };
}

describe("a before-hook's answer", () => {
  it("that is truncated JSON with exit 0 denies the call (on_error) instead of allowing it", async () => {
    const { env, made, decisions } = await runWithHook(`echo '{"decision":"deny"'; exit 0`, ["made.txt"]);
    expect(made("made.txt")).toBe(false);
    expect(decisions[0]).toMatchObject({ decision: "deny", source: { kind: "hook", name: "guard" } });
    expect(String(decisions[0]?.reason)).toContain("hook guard printed malformed JSON on stdout");
    expect(toolMessage(env, 1, "c1")).toContain('{"decision":"allow"|"deny","reason":"…"}');
  });

  it("that is malformed JSON follows on_error: allow, with the failure traced", async () => {
    const { made, messages } = await runWithHook(`echo '{"decision": deny}'`, ["made.txt"], "allow");
    expect(made("made.txt")).toBe(true);
    expect(payloadsOf(messages, "hook_result")[0]).toMatchObject({
      decision: "allow",
      reason: expect.stringMatching(/malformed JSON .*; allowed \(on_error: allow\)$/),
    });
  });

  it("in a shape Penguin does not know is refused with a message that shows Penguin's shape", async () => {
    const { env, made, decisions } = await runWithHook(`echo '{"verdict":"no"}'`, ["made.txt"]);
    expect(made("made.txt")).toBe(false);
    expect(decisions[0]).toMatchObject({ decision: "deny", source: { kind: "hook", name: "guard" } });
    const read = toolMessage(env, 1, "c1");
    expect(read).toContain("answered in a shape Penguin does not read");
    expect(read).toContain('{\\"verdict\\":\\"no\\"}');
    expect(read).toContain(
      'a before-hook answers {"decision":"allow"|"deny","reason":"…"} (or exit 2 to deny)',
    );
  });

  it("that asks for a human (permissionDecision ask) is refused, not read as allow", async () => {
    const { made, decisions } = await runWithHook(
      `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`,
      ["made.txt"],
    );
    expect(made("made.txt")).toBe(false);
    expect(String(decisions[0]?.reason)).toContain(
      'hookSpecificOutput.permissionDecision: "ask" is not a decision',
    );
  });

  it("that is plain text (a log line) with exit 0 still allows", async () => {
    const { made, decisions } = await runWithHook(`echo 'checked: nothing to see'`, ["made.txt"]);
    expect(made("made.txt")).toBe(true);
    expect(decisions[0]).toMatchObject({ decision: "allow", source: { kind: "mode" } });
  });
});

describe("a hook written for another harness", () => {
  it("reads .tool_input.command and blocks with {decision: block}", async () => {
    // As such hooks are written: the command from `.tool_input.command`, a verdict on stdout, exit 0.
    const { env, made, decisions } = await runWithHook(
      `cmd=$(jq -r .tool_input.command); case "$cmd" in *secret*) echo '{"decision":"block","reason":"no secrets here"}';; esac; exit 0`,
      ["secret.txt", "plain.txt"],
    );
    expect(made("secret.txt")).toBe(false);
    expect(made("plain.txt")).toBe(true);
    expect(decisions.find((d) => d.tool_call_id === "c1")).toMatchObject({
      decision: "deny",
      source: { kind: "hook", name: "guard" },
      reason: "no secrets here",
    });
    expect(toolMessage(env, 1, "c1")).toContain("denied by hook guard: no secrets here");
  });

  it("denies with a nested hookSpecificOutput.permissionDecision deny and its reason", async () => {
    const { made, decisions } = await runWithHook(
      `test "$(jq -r .hook_event_name)" = PreToolUse && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'`,
      ["made.txt"],
    );
    expect(made("made.txt")).toBe(false);
    expect(decisions[0]).toMatchObject({ decision: "deny", reason: "policy says no" });
  });

  it("denies with {permission: deny} and with {continue: false}", async () => {
    const { made, decisions } = await runWithHook(
      `if jq -e '.tool_input.command | contains("one")' >/dev/null; then echo '{"permission":"deny","agentMessage":"not one"}'; else echo '{"continue":false,"stopReason":"stop now"}'; fi`,
      ["one.txt", "two.txt"],
    );
    expect(made("one.txt")).toBe(false);
    expect(made("two.txt")).toBe(false);
    expect(decisions.map((d) => [d.tool_call_id, d.decision, d.reason])).toEqual([
      ["c1", "deny", "not one"],
      ["c2", "deny", "stop now"],
    ]);
  });

  it("allows with {decision: approve} and with permissionDecision allow", async () => {
    const { made } = await runWithHook(
      `if jq -e '.tool_input.command | contains("one")' >/dev/null; then echo '{"decision":"approve"}'; else echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; fi`,
      ["one.txt", "two.txt"],
    );
    expect(made("one.txt")).toBe(true);
    expect(made("two.txt")).toBe(true);
  });
});

describe("readHookAnswer", () => {
  it.each([
    ["", { kind: "none" }],
    ["all good", { kind: "none" }],
    ["0", { kind: "none" }],
    ['{"decision":"allow"}', { kind: "verdict", decision: "allow" }],
    ['{"decision":"deny","reason":" r "}', { kind: "verdict", decision: "deny", reason: "r" }],
    ['{"decision":"block"}', { kind: "verdict", decision: "deny" }],
    // A deny anywhere wins over an allow elsewhere.
    [
      '{"decision":"allow","hookSpecificOutput":{"permissionDecision":"deny"}}',
      { kind: "verdict", decision: "deny" },
    ],
    ['{"continue":true}', { kind: "foreign" }],
    ["{}", { kind: "foreign" }],
    ['["deny"]', { kind: "foreign" }],
    ['{"decision":"maybe"}', { kind: "foreign" }],
    ['{"decision":"allow","permission":"ask"}', { kind: "foreign" }],
    ['{"decision":"deny"', { kind: "malformed" }],
    ['checking...\n{"decision":"deny"}', { kind: "malformed" }],
  ])("reads %j as %j", (stdout, expected) => {
    expect(readHookAnswer(stdout)).toMatchObject(expected);
  });
});
