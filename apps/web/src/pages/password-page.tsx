import { type FormEvent, useState } from "react";
import { api } from "../api/client.js";
import type { User } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";

/**
 * The password form. Forced (the default): the server refuses everything else until a user with
 * an initial password picks a new one. Otherwise it is the account page's "change my password".
 */
export function PasswordPage({
  user,
  onChanged,
  forced = true,
}: {
  user: User;
  onChanged(): void;
  forced?: boolean;
}) {
  const heading = forced ? "Choose a password" : "Change your password";
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
      setCurrent("");
      setNext("");
      setRepeat("");
      onChanged();
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card narrow" onSubmit={submit} aria-label={heading}>
      {forced ? <h1>{heading}</h1> : <h2>{heading}</h2>}
      <p>
        {forced
          ? `${user.username}, your password was set for you. Choose your own before going on.`
          : "Your other browser sessions end and your API tokens are revoked when it changes."}
      </p>
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
