import { request } from "./client.js";
import type { ApiToken, CreatedApiToken, UsageQuery, UsageReport } from "./team-types.js";
import type { User } from "./types.js";

const enc = encodeURIComponent;

/** The team routes: user administration, API tokens and usage. */
export const teamApi = {
  listUsers: () => request<{ users: User[] }>("GET", "/api/users").then((r) => r.users),
  createUser: (username: string, password: string, role: User["role"]) =>
    request<{ user: User }>("POST", "/api/users", { username, password, role }).then((r) => r.user),
  setDisabled: (id: string, disabled: boolean) =>
    request<{ user: User }>("PATCH", `/api/users/${enc(id)}`, { disabled }).then((r) => r.user),
  resetPassword: (id: string, password: string) =>
    request<void>("POST", `/api/users/${enc(id)}/password`, { password }),

  listTokens: () => request<{ tokens: ApiToken[] }>("GET", "/api/tokens").then((r) => r.tokens),
  createToken: (name: string, expiresInDays: number | undefined) =>
    request<CreatedApiToken>("POST", "/api/tokens", {
      name,
      ...(expiresInDays !== undefined ? { expires_in_days: expiresInDays } : {}),
    }),
  revokeToken: (id: string) => request<void>("DELETE", `/api/tokens/${enc(id)}`),

  usage: (query: UsageQuery) => {
    const params = new URLSearchParams();
    if (query.all) params.set("all", "true");
    if (query.from) params.set("from", query.from);
    if (query.to) params.set("to", query.to);
    const search = params.toString();
    return request<UsageReport>("GET", `/api/usage${search ? `?${search}` : ""}`);
  },
};
