import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { LOGIN_ENVIRONMENT_FILE } from "../../src/processes/login-environment.js";
import { collect, stack, toolMessage } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// A session captures its login environment into its scratchpad (exec.login_environment, default
// once) once its first model request has been sent, and its commands source it; `always` keeps a
// login shell per command. Through the SDK, against fake-llm over HTTP.

const start = cleanedUpAfterEach(stack);
const exec = (id: string, cmd: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "check", cmd },
});

describe("exec.login_environment in a session", () => {
  it("once: the capture is a private file of the session's scratchpad, and commands source it", async () => {
    const env = await start([
      {
        tool_calls: [
          exec(
            "e1",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
            'echo "level=$SHLVL env=${BASH_ENV:-none}"; shopt -q login_shell && echo login || echo plain',
          ),
        ],
      },
      { text: "done" },
    ]);
    const session = await env.session();
    const file = join(session.scratchpadDir, LOGIN_ENVIRONMENT_FILE);
    // Nothing is captured before the first request (the shell would compete with it).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(() => statSync(file)).toThrow();
    // The call is approved once the capture, started after the request went out, has ended.
    const approve = async () => {
      await session.processes.loginEnvironmentSettled();
      return "allow" as const;
    };
    await collect(session.run("Check the shell.", { approve }));
    await session.dispose();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // BASH_ENV is gone once sourced, and the shell is no login shell.
    expect(toolMessage(env, 1, "e1")).toContain("env=none\nplain");
  });

  it("always: every command is a login shell, and nothing is captured", async () => {
    const env = await start(
      [{ tool_calls: [exec("e1", "shopt -q login_shell && echo login || echo plain")] }, { text: "done" }],
      {
        exec: { login_environment: "always" },
      },
    );
    const session = await env.session();
    await collect(session.run("Check the shell.", { approve: allowAll }));
    const file = join(session.scratchpadDir, LOGIN_ENVIRONMENT_FILE);
    await session.dispose();
    expect(toolMessage(env, 1, "e1")).toContain("login");
    expect(() => statSync(file)).toThrow();
  });
});
