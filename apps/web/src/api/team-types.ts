/** The team routes' answers: API tokens and usage. */

export interface ApiToken {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** A new token: `token` is shown this once, the server keeps only its hash. */
export interface CreatedApiToken extends ApiToken {
  token: string;
}

export interface UsageTotals {
  requests: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_usd: number | null;
}

export interface UsageReport {
  sessions: (UsageTotals & {
    session_id: string;
    user_id: string;
    title: string;
    provider: string;
    model_id: string;
  })[];
  users: (UsageTotals & { user_id: string; username: string })[];
  models: (UsageTotals & { provider: string; model_id: string })[];
  total: UsageTotals;
}

/** The days a usage report covers (UTC, YYYY-MM-DD, both inclusive); empty: no bound. */
export interface UsageQuery {
  from: string;
  to: string;
  all: boolean;
}
