import { type FormEvent, useCallback, useEffect, useState } from "react";
import { teamApi } from "../api/team-client.js";
import type { User } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { When } from "../components/when.js";

/** Admins only: every user, with who may log in, when they last did, and a password reset. */
export function UsersPage({ me }: { me: User }) {
  const [users, setUsers] = useState<User[]>();
  const [failure, setFailure] = useState<unknown>();

  const load = useCallback(() => {
    teamApi.listUsers().then(setUsers, setFailure);
  }, []);
  useEffect(load, [load]);

  return (
    <div className="page">
      <h1>Users</h1>
      <NewUserForm onCreated={load} />
      <ErrorText error={failure} />
      {users && (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Last login</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <UserRow key={user.id} user={user} self={user.id === me.id} onChanged={load} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function UserRow({ user, self, onChanged }: { user: User; self: boolean; onChanged(): void }) {
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState("");
  const [notice, setNotice] = useState<string>();
  const [failure, setFailure] = useState<unknown>();

  const run = async (work: () => Promise<unknown>, done: string) => {
    setFailure(undefined);
    setNotice(undefined);
    try {
      await work();
      setNotice(done);
      onChanged();
    } catch (caught) {
      setFailure(caught);
    }
  };
  const reset = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await teamApi.resetPassword(user.id, password);
      setResetting(false);
      setPassword("");
    }, `${user.username} must choose a new password at their next login`);
  };

  const status = user.disabled ? "disabled" : user.must_change_password ? "must change password" : "active";
  return (
    <tr data-testid="user-row" data-username={user.username}>
      <th scope="row">{user.username}</th>
      <td>{user.role}</td>
      <td>
        <span className={`badge tone-${user.disabled ? "bad" : user.must_change_password ? "wait" : "good"}`}>
          {status}
        </span>
      </td>
      <td>
        <When at={user.last_login_at} />
      </td>
      <td>
        <div className="row-actions">
          {!self && (
            <>
              <button
                type="button"
                className={user.disabled ? "" : "deny"}
                aria-label={`${user.disabled ? "Enable" : "Disable"} ${user.username}`}
                onClick={() =>
                  void run(
                    () => teamApi.setDisabled(user.id, !user.disabled),
                    user.disabled
                      ? `${user.username} may log in again`
                      : `${user.username} is logged out and disabled`,
                  )
                }
              >
                {user.disabled ? "Enable" : "Disable"}
              </button>
              <button
                type="button"
                className="secondary"
                aria-expanded={resetting}
                aria-label={`Reset the password of ${user.username}`}
                onClick={() => setResetting(!resetting)}
              >
                Reset password
              </button>
            </>
          )}
          {self && <span className="muted">you</span>}
          {resetting && (
            <form className="inline-form" onSubmit={reset} aria-label={`New password for ${user.username}`}>
              <label>
                New initial password
                <input
                  type="password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  required
                />
              </label>
              <button type="submit">Set password</button>
            </form>
          )}
          {notice && (
            <p className="saved" role="status">
              {notice}
            </p>
          )}
          <ErrorText error={failure} />
        </div>
      </td>
    </tr>
  );
}

function NewUserForm({ onCreated }: { onCreated(): void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<User["role"]>("member");
  const [failure, setFailure] = useState<unknown>();
  const [created, setCreated] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    setCreated(undefined);
    try {
      const user = await teamApi.createUser(username, password, role);
      setCreated(`${user.username} was created; they choose their own password at their first login`);
      setUsername("");
      setPassword("");
      onCreated();
    } catch (caught) {
      setFailure(caught);
    }
  };

  return (
    <form className="card grid" onSubmit={submit} aria-label="New user">
      <h2>New user</h2>
      <label>
        Username
        <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" required />
      </label>
      <label>
        Initial password
        <input
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value === "admin" ? "admin" : "member")}>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <button type="submit">Create user</button>
      {created && (
        <p className="saved" role="status">
          {created}
        </p>
      )}
      <ErrorText error={failure} />
    </form>
  );
}
