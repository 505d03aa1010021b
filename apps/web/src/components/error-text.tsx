import { errorMessage } from "@penguin/protocol/stream";
import { ApiError } from "../api/client.js";

/** A failed request as a person reads it: the server's message and every field it rejected. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return errorMessage(error);
  const lines = [error.message];
  for (const issue of error.body.issues ?? []) lines.push(`${issue.path}: ${issue.message}`);
  if (error.body.config_errors && !error.body.message) {
    for (const e of error.body.config_errors) lines.push(`${e.line}:${e.column} ${e.path}: ${e.message}`);
  }
  return lines.join("\n");
}

export function ErrorText({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  );
}
