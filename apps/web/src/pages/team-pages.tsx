import type { User } from "../api/types.js";
import { hrefOf } from "../router.js";
import { AccountPage } from "./account-page.js";
import { TokensPage } from "./tokens-page.js";
import { UsagePage } from "./usage-page.js";
import { UsersPage } from "./users-page.js";

/** The team's links of the top bar: Users only for admins, whose page members would be refused. */
export function TeamLinks({ user }: { user: User }) {
  return (
    <>
      <a href={hrefOf({ page: "usage" })}>Usage</a>
      <a href={hrefOf({ page: "tokens" })}>API tokens</a>
      {user.role === "admin" && <a href={hrefOf({ page: "users" })}>Users</a>}
    </>
  );
}

/** The team's pages by route name. */
export function TeamPage({ page, user }: { page: "users" | "tokens" | "account" | "usage"; user: User }) {
  switch (page) {
    case "users":
      return user.role === "admin" ? (
        <UsersPage me={user} />
      ) : (
        <div className="page">
          <h1>Users</h1>
          <p className="error" role="alert">
            Only admins manage users.
          </p>
        </div>
      );
    case "tokens":
      return <TokensPage />;
    case "account":
      return <AccountPage user={user} />;
    case "usage":
      return <UsagePage user={user} />;
  }
}
