import type { Context } from "hono";
import type { User } from "../auth/users.js";

/** How the caller of a request proved who they are. */
export interface AuthState {
  user: User;
  method: "cookie" | "bearer";
  /** The cookie session's row id, when `method` is "cookie". */
  authSessionId?: string;
  /** When the cookie session expires (ISO 8601), when `method` is "cookie". */
  authSessionExpiresAt?: string;
  /** The API token's id, when `method` is "bearer". */
  apiTokenId?: string;
}

/** The Hono environment of every route: the authenticated caller, set by the auth middleware. */
export interface AppEnv {
  Variables: {
    auth: AuthState | undefined;
  };
}

export type AppContext = Context<AppEnv>;
