import { useState } from "react";
import type { User } from "../api/types.js";
import { When } from "../components/when.js";
import { hrefOf } from "../router.js";
import { PasswordPage } from "./password-page.js";

/** Who you are logged in as, and changing your own password. */
export function AccountPage({ user }: { user: User }) {
  const [changed, setChanged] = useState(false);
  return (
    <div className="page">
      <h1>Account</h1>
      <section className="card narrow" aria-label="About you">
        <p>
          Logged in as <strong>{user.username}</strong> ({user.role}). Last login:{" "}
          <When at={user.last_login_at} />.
        </p>
        <p>
          <a href={hrefOf({ page: "tokens" })}>Your API tokens</a>
        </p>
      </section>
      <PasswordPage user={user} forced={false} onChanged={() => setChanged(true)} />
      {changed && (
        <p className="saved" role="status">
          Your password was changed.
        </p>
      )}
    </div>
  );
}
