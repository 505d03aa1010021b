import { type FormEvent, useEffect, useState } from "react";
import { readToolRows, type ToolRow, writeToolRows } from "../agents/tool-rows.js";
import { ApiError, api } from "../api/client.js";
import type { ConfigError } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { hrefOf } from "../router.js";

type Loaded = { yaml: string; rows: ToolRow[] | undefined };

/**
 * An agent's tools as rows of its system_config.yaml `tools.builtin`: description, permission,
 * timeout, output cap and the description-argument toggle. It edits the rows that are there and
 * adds none; the server validates the whole file before writing it and its errors are shown.
 */
export function AgentSettingsPage({ agentId, isAdmin }: { agentId: string; isAdmin: boolean }) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [rows, setRows] = useState<ToolRow[]>([]);
  const [failure, setFailure] = useState<unknown>();
  const [configErrors, setConfigErrors] = useState<ConfigError[]>([]);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!isAdmin) return;
    api.readAgentConfig(agentId).then((config) => {
      const result = readToolRows(config.yaml);
      if (!result.ok) {
        setFailure(new Error(`the file cannot be read: ${result.message}`));
        return;
      }
      setLoaded({ yaml: config.yaml, rows: result.rows });
      setRows(result.rows ?? []);
    }, setFailure);
  }, [agentId, isAdmin]);

  const update = (index: number, change: Partial<ToolRow>) => {
    setSaved(false);
    setRows((current) => current.map((row, i) => (i === index ? { ...row, ...change } : row)));
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!loaded) return;
    setBusy(true);
    setFailure(undefined);
    setConfigErrors([]);
    setSaved(false);
    try {
      const yaml = writeToolRows(loaded.yaml, rows);
      const written = await api.replaceAgentConfig(agentId, yaml);
      setLoaded({ yaml: written.yaml, rows });
      setSaved(true);
    } catch (caught) {
      if (caught instanceof ApiError && caught.body.config_errors) setConfigErrors(caught.body.config_errors);
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <p>
        <a href={hrefOf({ page: "agents" })}>← Agents</a>
      </p>
      <h1>Agent {agentId}: tools</h1>
      {!isAdmin && <p className="muted">Only admins can read and change an agent's configuration.</p>}
      {loaded && loaded.rows === undefined && (
        <p className="muted">
          This agent's file does not list tools.builtin: it follows the default toolset.
        </p>
      )}
      {loaded?.rows && (
        <form className="card" onSubmit={save} aria-label="Agent tools">
          <table className="tool-rows" data-testid="tool-rows">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Description (for the model)</th>
                <th>Permission</th>
                <th>Timeout (ms)</th>
                <th>Max output (chars)</th>
                <th>Call description</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={row.name} data-tool={row.name}>
                  <td>
                    <code>{row.name}</code>
                  </td>
                  <td>
                    <textarea
                      name={`${row.name}.description`}
                      aria-label={`${row.name} description`}
                      rows={3}
                      value={row.description}
                      onChange={(e) => update(index, { description: e.target.value })}
                    />
                  </td>
                  <td>
                    <select
                      name={`${row.name}.permission`}
                      aria-label={`${row.name} permission`}
                      value={row.permission}
                      onChange={(e) => update(index, { permission: e.target.value })}
                    >
                      <option value="r" title="read-only">
                        r
                      </option>
                      <option value="rw" title="read-write">
                        rw
                      </option>
                    </select>
                  </td>
                  <td>
                    <input
                      name={`${row.name}.timeoutMs`}
                      aria-label={`${row.name} timeoutMs`}
                      inputMode="numeric"
                      placeholder="default"
                      value={row.timeoutMs}
                      onChange={(e) => update(index, { timeoutMs: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      name={`${row.name}.maxOutputLength`}
                      aria-label={`${row.name} maxOutputLength`}
                      inputMode="numeric"
                      placeholder="default"
                      value={row.maxOutputLength}
                      onChange={(e) => update(index, { maxOutputLength: e.target.value })}
                    />
                  </td>
                  <td>
                    {row.hasDescriptionArgument ? (
                      <input
                        type="checkbox"
                        name={`${row.name}.call_description`}
                        aria-label={`${row.name} call_description`}
                        checked={row.callDescription}
                        onChange={(e) => update(index, { callDescription: e.target.checked })}
                      />
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">
            0 or less disables a timeout or an output cap; an empty field uses the default. New tools are
            added by editing system_config.yaml itself.
          </p>
          {configErrors.length > 0 ? (
            <ul className="error" role="alert" data-testid="config-errors">
              {configErrors.map((e) => (
                <li key={`${e.line}:${e.column}:${e.path}`}>
                  line {e.line}, column {e.column}: {e.path}: {e.message}
                </li>
              ))}
            </ul>
          ) : (
            <ErrorText error={failure} />
          )}
          {saved && (
            <p className="saved" role="status">
              Saved. Sessions opened from now on use it.
            </p>
          )}
          <button type="submit" disabled={busy}>
            Save
          </button>
        </form>
      )}
      {!loaded && <ErrorText error={failure} />}
    </div>
  );
}
