import { type FormEvent, useState } from "react";
import { api } from "../api/client.js";
import type { User } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";

/** The server refuses everything else until a user with an initial password picks a new one. */
export function PasswordPage({ user, onChanged }: { user: User; onChanged(): void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== repeat) {
      setFailure(new Error("the two new passwords differ"));
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      await api.changePassword(current, next);
      onChanged();
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card narrow" onSubmit={submit} aria-label="Choose a password">
      <h1>Choose a password</h1>
      <p>{user.username}, your password was set for you. Choose your own before going on.</p>
      <label>
        Current password
        <input
          name="current_password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          required
        />
      </label>
      <label>
        New password
        <input
          name="new_password"
          type="password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          required
        />
      </label>
      <label>
        New password again
        <input
          name="repeat_password"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          required
        />
      </label>
      <ErrorText error={failure} />
      <button type="submit" disabled={busy}>
        Save password
      </button>
    </form>
  );
}
