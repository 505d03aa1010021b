import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { collect, payloadsOf, stack, toolMessage, traceRecords } from "./support.js";

// What a hook prints reaches the model, the trace and the terminal (a deny reason, an after-hook's
// shown output) under the same rule as a command's output: NUL and the other control characters
// except tab, newline, carriage return and ESC become U+FFFD.

const start = cleanedUpAfterEach(stack);

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});
const twoTurns = (calls: ReturnType<typeof exec>[]) => [{ tool_calls: calls }, { text: "done" }];

/** Control characters no text leaving Penguin may carry (ESC is allowed, as in command output). */
const RAW_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F]/;

describe("control characters in hook output", () => {
  it("are replaced in a before-hook's deny reason, for the model, the trace and the stream", async () => {
    const env = await start(twoTurns([exec("echo never", "c1")]), {
      hooks: {
        before_tool: [
          { name: "guard", command: "printf 'no\\000 way\\007 \\033[31mred\\033[0m\\b!' >&2; exit 2" },
        ],
      },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const expected = "no\uFFFD way\uFFFD \u001b[31mred\u001b[0m\uFFFD!";
    const [decision] = payloadsOf(messages, "approval_decision");
    expect(decision?.reason).toBe(expected);
    const [traced] = payloadsOf(traceRecords(session.tracePath), "hook_result");
    expect(traced?.reason).toBe(expected);
    expect(String(traced?.output)).not.toMatch(RAW_CONTROLS);
    expect(toolMessage(env, 1, "c1")).toContain(expected);
    expect(toolMessage(env, 1, "c1")).not.toMatch(RAW_CONTROLS);
  });

  it("are replaced in a JSON deny reason, where an escape such as \\u0000 decodes to the raw character", async () => {
    const env = await start(twoTurns([exec("echo never", "c1")]), {
      hooks: {
        before_tool: [
          { name: "json", command: `echo '{"decision":"deny","reason":"bad\\u0000 input\\u0007"}'` },
        ],
      },
    });
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(payloadsOf(messages, "approval_decision")[0]?.reason).toBe("bad\uFFFD input\uFFFD");
  });

  it("are replaced in an after-hook's show_output that the model reads", async () => {
    const env = await start(twoTurns([exec("echo built", "c1")]), {
      hooks: {
        after_tool: [{ name: "lint", command: "printf '2 warnings\\000\\f\\033[1mbold'", show_output: true }],
      },
    });
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const read = toolMessage(env, 1, "c1");
    expect(read).toContain("[hook lint]\n2 warnings\uFFFD\uFFFD\u001b[1mbold");
    expect(read).not.toMatch(RAW_CONTROLS);
    const [traced] = payloadsOf(traceRecords(session.tracePath), "hook_result");
    expect(traced?.output).toBe("2 warnings\uFFFD\uFFFD\u001b[1mbold");
  });
});
