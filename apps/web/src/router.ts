import { useEffect, useState } from "react";

/** The app's pages. Hash routes (`#/sessions/abc`): the server serves one index.html for all. */
export type Route =
  | { page: "sessions" }
  | { page: "chat"; sessionId: string }
  | { page: "trace"; sessionId: string }
  | { page: "agents" }
  | { page: "agent"; agentId: string }
  | { page: "users" | "tokens" | "account" | "usage" };

const TEAM_PAGES = ["users", "tokens", "account", "usage"] as const;

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, "")
    .split("/")
    .filter((part) => part !== "")
    .map((part) => decodeURIComponent(part));
  if (parts[0] === "sessions" && parts[1]) {
    return parts[2] === "trace"
      ? { page: "trace", sessionId: parts[1] }
      : { page: "chat", sessionId: parts[1] };
  }
  const team = TEAM_PAGES.find((page) => page === parts[0]);
  if (team) return { page: team };
  if (parts[0] === "agents") return parts[1] ? { page: "agent", agentId: parts[1] } : { page: "agents" };
  return { page: "sessions" };
}

export function hrefOf(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.page) {
    case "sessions":
      return "#/";
    case "chat":
      return `#/sessions/${enc(route.sessionId)}`;
    case "trace":
      return `#/sessions/${enc(route.sessionId)}/trace`;
    case "agents":
      return "#/agents";
    case "agent":
      return `#/agents/${enc(route.agentId)}`;
    default:
      return `#/${route.page}`;
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
