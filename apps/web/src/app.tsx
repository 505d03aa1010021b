import { useCallback, useEffect, useState } from "react";
import { ApiError, api, setUnauthorizedHandler } from "./api/client.js";
import type { User } from "./api/types.js";
import { AgentSettingsPage } from "./pages/agent-settings-page.js";
import { AgentsPage } from "./pages/agents-page.js";
import { ChatPage } from "./pages/chat-page.js";
import { LoginPage } from "./pages/login-page.js";
import { PasswordPage } from "./pages/password-page.js";
import { SessionsPage } from "./pages/sessions-page.js";
import { TeamLinks, TeamPage } from "./pages/team-pages.js";
import { TracePage } from "./pages/trace-page.js";
import { hrefOf, type Route, useRoute } from "./router.js";

type Auth = { status: "checking" } | { status: "anonymous"; error?: string } | { status: "user"; user: User };

/** Who is logged in decides the page: login, the forced password change, or the routed page. */
export function App() {
  const [auth, setAuth] = useState<Auth>({ status: "checking" });
  const route = useRoute();

  const refresh = useCallback(async () => {
    try {
      setAuth({ status: "user", user: await api.me() });
    } catch (error) {
      const message = error instanceof ApiError && error.status !== 401 ? error.message : undefined;
      setAuth({ status: "anonymous", ...(message ? { error: message } : {}) });
    }
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => setAuth({ status: "anonymous" }));
    void refresh();
  }, [refresh]);

  if (auth.status === "checking") return <p className="loading">Loading…</p>;
  if (auth.status === "anonymous")
    return <LoginPage error={auth.error} onLoggedIn={(user) => setAuth({ status: "user", user })} />;
  if (auth.user.must_change_password) return <PasswordPage user={auth.user} onChanged={refresh} />;

  const logout = async () => {
    await api.logout().catch(() => undefined);
    setAuth({ status: "anonymous" });
  };
  return (
    <div className="app">
      <header className="topbar">
        <a className="brand" href={hrefOf({ page: "sessions" })}>
          Penguin
        </a>
        <nav aria-label="Pages">
          <a href={hrefOf({ page: "sessions" })}>Sessions</a>
          <a href={hrefOf({ page: "agents" })}>Agents</a>
          <TeamLinks user={auth.user} />
        </nav>
        <span className="who">
          <a href={hrefOf({ page: "account" })} aria-label={`Account: ${auth.user.username}`}>
            {auth.user.username}
          </a>
          <button type="button" className="link" onClick={logout}>
            Log out
          </button>
        </span>
      </header>
      <main>
        <Page route={route} user={auth.user} />
      </main>
    </div>
  );
}

function Page({ route, user }: { route: Route; user: User }) {
  switch (route.page) {
    case "sessions":
      return <SessionsPage />;
    case "chat":
      return <ChatPage key={route.sessionId} sessionId={route.sessionId} />;
    case "trace":
      return <TracePage key={route.sessionId} sessionId={route.sessionId} />;
    case "agents":
      return <AgentsPage isAdmin={user.role === "admin"} />;
    case "agent":
      return (
        <AgentSettingsPage key={route.agentId} agentId={route.agentId} isAdmin={user.role === "admin"} />
      );
    default:
      return <TeamPage page={route.page} user={user} />;
  }
}
