/**
 * The environment every command runs with. A command's output goes to a model, not a terminal,
 * and nobody can answer a prompt, so anything that would page, open an editor, prompt, or paint
 * colours is told not to. Each entry is safe to force: it only turns off interaction.
 *
 * Left out on purpose:
 * - `CI`: many tools change behaviour under it beyond interaction (pnpm install switches to
 *   `--frozen-lockfile` and fails on a changed manifest, test runners change reporters), which
 *   would surprise an agent doing ordinary development work.
 * - `GIT_SSH_COMMAND`: it would replace a user's own ssh setup. ssh cannot prompt anyway: the
 *   command runs in a new session without a controlling terminal (see platform.ts).
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  // Pagers: print everything instead of waiting for a key.
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  // Editors: `git commit` without -m, `crontab -e`, … return at once instead of opening vi.
  EDITOR: "true",
  VISUAL: "true",
  GIT_EDITOR: "true",
  // Prompts: fail instead of waiting for an answer.
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
  // Colours and terminal features: plain text for the model.
  TERM: "dumb",
  NO_COLOR: "1",
  CLICOLOR: "0",
  FORCE_COLOR: "0",
};

/**
 * The child environment: the inherited one, with the non-interactive settings on top (they win
 * over inherited values, e.g. a user's `PAGER=less` or `FORCE_COLOR=1`), and explicit extras
 * last (settings the embedder passes on purpose, such as vault values, win over everything).
 */
export function nonInteractiveEnv(
  inherited: Readonly<Record<string, string | undefined>> = process.env,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(inherited)) {
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...NON_INTERACTIVE_ENV, ...extra };
}
