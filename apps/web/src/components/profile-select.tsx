import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { ExecutionProfileChoice } from "../api/types.js";

/** What a profile's option says: its name, and a warning when it hands over the server user's access. */
function profileLabel(profile: ExecutionProfileChoice): string {
  if (profile.full_host_access) return `${profile.name} (full host access)`;
  return profile.kind === "sandbox" && !profile.network
    ? `${profile.name} (sandbox, no network)`
    : `${profile.name} (sandbox)`;
}

/**
 * The execution profile of a new session: the agent's profiles from GET /api/execution-profiles
 * (reloaded when the agent changes), "" for the agent's default. A profile with full host access
 * is said so in its option, and under the select when it is the one chosen.
 */
export function ProfileSelect(props: { agentId: string; value: string; onChange: (value: string) => void }) {
  const { agentId, value, onChange } = props;
  const [profiles, setProfiles] = useState<ExecutionProfileChoice[]>([]);
  const [defaultProfile, setDefaultProfile] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    const id = agentId.trim() || "default";
    // An agent being typed may not exist yet: the select then offers the agent's default only.
    void api
      .listExecutionProfiles(id)
      .then((list) => {
        if (!current) return;
        setProfiles(list.profiles);
        setDefaultProfile(list.default_profile);
      })
      .catch(() => {
        if (!current) return;
        setProfiles([]);
        setDefaultProfile(undefined);
      });
    return () => {
      current = false;
    };
  }, [agentId]);

  useEffect(() => {
    // A profile the newly chosen agent does not have falls back to its default.
    if (value !== "" && profiles.length > 0 && !profiles.some((profile) => profile.name === value))
      onChange("");
  }, [profiles, value, onChange]);

  const chosen = profiles.find((profile) => profile.name === (value || defaultProfile));
  const defaultEntry = profiles.find((profile) => profile.name === defaultProfile);
  return (
    <label>
      Execution profile
      <select name="execution_profile" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">
          {defaultEntry ? `the agent's default: ${profileLabel(defaultEntry)}` : "the agent's default"}
        </option>
        {profiles.map((profile) => (
          <option key={profile.name} value={profile.name}>
            {profileLabel(profile)}
          </option>
        ))}
      </select>
      {chosen?.full_host_access && (
        <span className="muted" data-testid="full-host-access">
          Its commands and file tools act as the server's user, with all of that user's access.
        </span>
      )}
    </label>
  );
}
