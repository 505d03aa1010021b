/**
 * A session could not be set up because of something the user can fix: no or an unusable
 * model, a missing workspace, an invalid agent or project config, an unknown session id, an
 * MCP server the caller passed for the session (`mcp_servers`).
 * Front ends print its message as one line (the CLI exits 2); nothing was started.
 */
export class SetupError extends Error {
  override readonly name = "SetupError";

  constructor(
    message: string,
    readonly kind: "model" | "workspace" | "config" | "session" | "mcp_servers",
  ) {
    super(message);
  }
}
