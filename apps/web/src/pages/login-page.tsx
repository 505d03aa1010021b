import { type FormEvent, useState } from "react";
import { api } from "../api/client.js";
import type { User } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";

export function LoginPage({ error, onLoggedIn }: { error?: string; onLoggedIn(user: User): void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [failure, setFailure] = useState<unknown>(error);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      onLoggedIn(await api.login(username, password));
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card narrow" onSubmit={submit} aria-label="Log in">
      <h1>Penguin</h1>
      <label>
        Username
        <input
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          required
        />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      <ErrorText error={failure} />
      <button type="submit" disabled={busy}>
        Log in
      </button>
    </form>
  );
}
