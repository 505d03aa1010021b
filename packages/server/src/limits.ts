import { NOTICE_DATA_MAX_BYTES, NOTICE_SUMMARY_MAX_BYTES } from "@penguin/core";
/**
 * Limits and defaults of the server, each with the sentence of the contract it implements.
 */

/** "default `127.0.0.1:7364`" — loopback only unless the operator asks for more. */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 7364;

/** "oversized bodies are refused": a JSON request body larger than this gets 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Cookie sessions of the browser last this long, then the user logs in again. */
export const AUTH_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** An API token's `last_used_at` is written at most this often (one write per request would be wasteful). */
export const TOKEN_LAST_USED_RESOLUTION_MS = 60 * 1000;

/** "Rate-limit login failures per username": this many failures in a row are free… */
export const LOGIN_FREE_ATTEMPTS = 5;
/** …then each further failure doubles the wait, starting here… */
export const LOGIN_BASE_DELAY_MS = 1000;
/** …up to this cap; the record of a username is forgotten after this long without failures. */
export const LOGIN_MAX_DELAY_MS = 15 * 60 * 1000;
/**
 * Usernames tracked at once, so a flood cannot grow memory. Only records whose block is over are
 * dropped to make room (least recently failed first); a blocked one is kept whatever the flood.
 */
export const LOGIN_MAX_TRACKED_USERNAMES = 10_000;
/**
 * Failures counted per client address too, with the same backoff shape, so a flood of distinct
 * usernames from one place is slowed as well. More are free than per username: one office behind
 * one NAT address shares them. IPv6 addresses count per /64, the block a single host usually has.
 */
export const LOGIN_ADDRESS_FREE_ATTEMPTS = 20;
/** Client addresses tracked at once (same eviction rule as usernames). */
export const LOGIN_MAX_TRACKED_ADDRESSES = 10_000;
/**
 * Password hashes (login, password change, user creation) computed at once. Each scrypt holds a
 * libuv thread and 32 MiB for tens of milliseconds; the pool has 4 threads shared with file
 * access, so a flood of logins must not take them all.
 */
export const MAX_CONCURRENT_PASSWORD_HASHES = 2;
/** Hash requests waiting for a slot; beyond this the answer is 429 with `Retry-After`. */
export const MAX_QUEUED_PASSWORD_HASHES = 16;
/** `Retry-After` seconds when the password hashing queue is full. */
export const PASSWORD_HASH_BUSY_RETRY_SECONDS = 1;

/** Passwords: at least 8 characters (NIST SP 800-63B), at most 1024 so hashing stays bounded. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** SSE: "ring buffer 10,000 events / 8 MB per channel". */
export const SSE_MAX_BUFFERED_EVENTS = 10_000;
export const SSE_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** SSE: "heartbeat every 20 s", as a comment line that clients ignore and proxies see as traffic. */
export const SSE_HEARTBEAT_MS = 20_000;

/**
 * "Cap SSE connections per user": live streams one user may have open at once (every tab holds
 * two: its user events and the open session's). Beyond it the answer is 429 `too_many_streams`.
 */
export const MAX_STREAMS_PER_USER = 32;
/**
 * "Re-check a stream's credential periodically": an open stream's browser session or API token
 * is looked up again this often, so one that expired or was removed by other means ends it.
 * Revocations through the API end the streams at once, without waiting for this.
 */
export const STREAM_CREDENTIAL_RECHECK_MS = 30_000;

/** SQLite waits this long for a lock held by another connection before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * PostgreSQL connections one server instance keeps at most. Each costs a backend process on the
 * database server (default `max_connections` 100), and several instances share one database;
 * requests beyond it wait for a free connection.
 */
export const POSTGRES_POOL_SIZE = 10;
/** Opening a PostgreSQL connection fails after this long (an unreachable host, a firewall dropping packets). */
export const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;
/** An idle pooled PostgreSQL connection is closed after this long. */
export const POSTGRES_IDLE_TIMEOUT_MS = 30_000;

/**
 * "Idle runtimes released after a configurable idle time": a session with no task and no running
 * command for this long has its SDK session disposed; the next task resumes it from the trace.
 */
export const DEFAULT_IDLE_RELEASE_MS = 10 * 60 * 1000;

/** Decided tool call ids a live runtime remembers, so a second decision gets 409 at once. */
export const RECENT_DECISIONS_KEPT = 1024;

/** A session title is one line of at most this many characters (a task's first line, cut). */
export const MAX_TITLE_CHARS = 120;

/** Images attached to one task (data: or http(s) URLs). */
export const MAX_TASK_IMAGES = 8;
/** Characters of one attached image's URL (a data: URL holds the whole image). */
export const MAX_IMAGE_URL_CHARS = 900_000;
/** Characters of a task's or a steering message's text. */
export const MAX_TASK_INPUT_CHARS = 512 * 1024;
/**
 * "Documented limits must be reachable": a steering body at every schema limit fits. Image URLs are
 * ASCII without characters JSON escapes (one byte each); a text character takes at most six
 * bytes in JSON (`\u001f`); 64 KiB is left for the JSON around them.
 */
export const MAX_STEER_BODY_BYTES = 6 * MAX_TASK_INPUT_CHARS + 64 * 1024;
/** The same for a task, whose images come on top. */
export const MAX_TASK_BODY_BYTES =
  MAX_TASK_IMAGES * MAX_IMAGE_URL_CHARS + 6 * MAX_TASK_INPUT_CHARS + 64 * 1024;

/**
 * A notice's body at its limits (summary 4 KiB, data 64 KiB as JSON: core's NOTICE_*_MAX_BYTES)
 * fits: every byte may take six in JSON, and 64 KiB is left for the JSON around them. What is
 * past the notice's own limits is refused by core with the reason (413 `too_large`).
 */
export const MAX_NOTICE_BODY_BYTES = 6 * (NOTICE_SUMMARY_MAX_BYTES + NOTICE_DATA_MAX_BYTES) + 64 * 1024;

/** The largest session export `POST /api/sessions/import` accepts (its JSON body, the trace as one string). */
export const MAX_IMPORT_BODY_BYTES = 32 * 1024 * 1024;

/** A person's reason for denying a call, which the model reads: a few sentences, not a document. */
export const MAX_DENY_REASON_CHARS = 2_000;
/** A command prefix allowed for a session: a program and a few words of it. */
export const MAX_COMMAND_PREFIX_CHARS = 1_000;

/**
 * "A session's runtime lives on one instance at a time, which holds a lease row with an expiry
 * that it renews": an instance's lease lasts this long from its last renewal. A dead instance's
 * sessions are taken over this long after its last renewal at most (at once by a successor on the
 * same host, which sees its process gone).
 */
export const LEASE_TTL_MS = 15_000;
/** The lease is renewed this often: two renewals may fail in a row before it lapses. */
export const LEASE_RENEW_MS = 5_000;
