import { type FormEvent, useCallback, useEffect, useState } from "react";
import { teamApi } from "../api/team-client.js";
import type { ApiToken, CreatedApiToken } from "../api/team-types.js";
import { ErrorText } from "../components/error-text.js";
import { When } from "../components/when.js";

const EXPIRY_CHOICES = [
  { label: "7 days", days: 7 },
  { label: "30 days", days: 30 },
  { label: "90 days", days: 90 },
  { label: "1 year", days: 365 },
  { label: "never", days: undefined },
] as const;

/** The caller's API tokens: create one (its secret shown once), list them, revoke one. */
export function TokensPage() {
  const [tokens, setTokens] = useState<ApiToken[]>();
  const [created, setCreated] = useState<CreatedApiToken>();
  const [failure, setFailure] = useState<unknown>();

  const load = useCallback(() => {
    teamApi.listTokens().then(setTokens, setFailure);
  }, []);
  useEffect(load, [load]);

  const revoke = async (token: ApiToken) => {
    setFailure(undefined);
    try {
      await teamApi.revokeToken(token.id);
      if (created?.id === token.id) setCreated(undefined);
      load();
    } catch (caught) {
      setFailure(caught);
    }
  };

  return (
    <div className="page">
      <h1>API tokens</h1>
      <p className="muted">
        A token lets a script or the CLI act as you: send it as <code>Authorization: Bearer …</code>.
      </p>
      <NewTokenForm
        onCreated={(token) => {
          setCreated(token);
          load();
        }}
      />
      {created && <NewSecret token={created} />}
      <ErrorText error={failure} />
      {tokens && tokens.length === 0 && <p className="muted">You have no API tokens.</p>}
      {tokens && tokens.length > 0 && (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Your API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr key={token.id} data-testid="token-row" data-name={token.name}>
                  <th scope="row">{token.name}</th>
                  <td>
                    <When at={token.created_at} />
                  </td>
                  <td>
                    <When at={token.last_used_at} />
                  </td>
                  <td>
                    <When at={token.expires_at} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="deny"
                      aria-label={`Revoke ${token.name}`}
                      onClick={() => void revoke(token)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** The secret of a token just made: this page is the only place it is ever shown. */
function NewSecret({ token }: { token: CreatedApiToken }) {
  const [copied, setCopied] = useState<"copied" | "failed">();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <section className="card secret" aria-label="New token">
      <h2>Your new token “{token.name}”</h2>
      <p>Copy it now: it will not be shown again.</p>
      <div className="secret-row">
        <input readOnly aria-label="Token" value={token.token} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied && (
        <p className={copied === "copied" ? "saved" : "error"} role="status">
          {copied === "copied" ? "Copied to the clipboard" : "Copying failed: select the token and copy it"}
        </p>
      )}
    </section>
  );
}

function NewTokenForm({ onCreated }: { onCreated(token: CreatedApiToken): void }) {
  const [name, setName] = useState("");
  const [expiry, setExpiry] = useState("30 days");
  const [failure, setFailure] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    try {
      const days = EXPIRY_CHOICES.find((choice) => choice.label === expiry)?.days;
      onCreated(await teamApi.createToken(name, days));
      setName("");
    } catch (caught) {
      setFailure(caught);
    }
  };

  return (
    <form className="card grid" onSubmit={submit} aria-label="New API token">
      <h2>New token</h2>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required />
      </label>
      <label>
        Expires after
        <select value={expiry} onChange={(e) => setExpiry(e.target.value)}>
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.label} value={choice.label}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Create token</button>
      <ErrorText error={failure} />
    </form>
  );
}
