import { type FormEvent, useCallback, useEffect, useState } from "react";
import { teamApi } from "../api/team-client.js";
import type { UsageQuery, UsageReport, UsageTotals } from "../api/team-types.js";
import type { User } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { formatUsd, tokenCount } from "../stream/usage.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Tokens and cost per user and per model over a range of days; admins may see everyone's. */
export function UsagePage({ user }: { user: User }) {
  const isAdmin = user.role === "admin";
  const [query, setQuery] = useState<UsageQuery>(() => ({
    from: utcDay(Date.now() - 29 * DAY_MS),
    to: utcDay(Date.now()),
    all: isAdmin,
  }));
  const [report, setReport] = useState<UsageReport>();
  const [failure, setFailure] = useState<unknown>();

  const load = useCallback((asked: UsageQuery) => {
    setFailure(undefined);
    teamApi.usage(asked).then(setReport, setFailure);
  }, []);
  // The first report: the last 30 days.
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once, later on submit
  useEffect(() => load(query), [load]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    load(query);
  };

  return (
    <div className="page">
      <h1>Usage</h1>
      <form className="card grid usage-range" onSubmit={submit} aria-label="Usage range">
        <label>
          From
          <input
            type="date"
            value={query.from}
            onChange={(e) => setQuery({ ...query, from: e.target.value })}
          />
        </label>
        <label>
          To
          <input type="date" value={query.to} onChange={(e) => setQuery({ ...query, to: e.target.value })} />
        </label>
        {isAdmin && (
          <label className="check">
            <input
              type="checkbox"
              checked={query.all}
              onChange={(e) => setQuery({ ...query, all: e.target.checked })}
            />{" "}
            Every user
          </label>
        )}
        <button type="submit">Show</button>
        <p className="muted">Days are UTC, both ends included.</p>
      </form>
      <ErrorText error={failure} />
      {report && (
        <>
          <p className="usage-total" data-testid="usage-total">
            Total: {tokenCount.format(report.total.total_tokens)} tokens in{" "}
            {tokenCount.format(report.total.requests)} requests · {costText(report.total)}
          </p>
          <UsageTable
            caption="Per user"
            rows={report.users.map((row) => ({ key: row.user_id, label: row.username, totals: row }))}
          />
          <UsageTable
            caption="Per model"
            rows={report.models.map((row) => ({
              key: `${row.provider}/${row.model_id}`,
              label: `${row.provider}/${row.model_id}`,
              totals: row,
            }))}
          />
        </>
      )}
    </div>
  );
}

const costText = (totals: UsageTotals) =>
  totals.cost_usd === null ? "cost unknown" : formatUsd(totals.cost_usd);

function UsageTable({
  caption,
  rows,
}: {
  caption: string;
  rows: { key: string; label: string; totals: UsageTotals }[];
}) {
  return (
    <section className="card" aria-label={caption}>
      <h2>{caption}</h2>
      {rows.length === 0 ? (
        <p className="muted">No model requests in these days.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table numbers">
            <thead>
              <tr>
                <th scope="col">{caption === "Per user" ? "User" : "Model"}</th>
                <th scope="col">Requests</th>
                <th scope="col">Output tokens</th>
                <th scope="col">Total tokens</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ key, label, totals }) => (
                <tr key={key} data-testid="usage-row">
                  <th scope="row">{label}</th>
                  <td>{tokenCount.format(totals.requests)}</td>
                  <td>{tokenCount.format(totals.output_tokens)}</td>
                  <td>{tokenCount.format(totals.total_tokens)}</td>
                  <td>{costText(totals)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
