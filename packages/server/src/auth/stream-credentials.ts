import type { Kysely } from "kysely";
import type { ServerDatabase } from "../db/schema.js";
import type { AuthState } from "../http/context.js";
import type { StreamCredential } from "../sse/stream-registry.js";
import { apiTokenExists } from "./api-tokens.js";
import { authSessionIsLive } from "./auth-sessions.js";

/** The credential a request proved its user with, as the stream registry tracks it. */
export function streamCredentialOf(auth: AuthState): StreamCredential {
  return {
    userId: auth.user.id,
    ...(auth.authSessionId !== undefined ? { authSessionId: auth.authSessionId } : {}),
    ...(auth.authSessionExpiresAt !== undefined ? { expiresAt: auth.authSessionExpiresAt } : {}),
    ...(auth.apiTokenId !== undefined ? { apiTokenId: auth.apiTokenId } : {}),
  };
}

/** Checks a stream's credential against the database: its browser session or API token still stands. */
export function streamCredentialVerifier(
  db: Kysely<ServerDatabase>,
  now: () => Date,
): (credential: StreamCredential) => Promise<boolean> {
  return async (credential) => {
    if (credential.authSessionId !== undefined) return authSessionIsLive(db, credential.authSessionId, now());
    if (credential.apiTokenId !== undefined) return apiTokenExists(db, credential.apiTokenId, now());
    return false;
  };
}
