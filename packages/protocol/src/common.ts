import { z } from "zod";
import { anyString, anyValue, nonNegativeInt } from "./fields.js";

/** Why a model request, a tool call or a task ended. */
export const StopReasonSchema = z.enum(["completed", "failed", "aborted", "timeout", "malformed", "auth"]);
export type StopReason = z.infer<typeof StopReasonSchema>;
export const STOP_REASONS = StopReasonSchema.options;

/**
 * Token counts of one request or of a whole session. `total` counts every input token
 * (cached or not) plus the output; `cache_read` and `cache_write` are the parts of the input
 * served from or written to the provider's prompt cache.
 */
export const TokenCountsSchema = z.looseObject({
  cache_read: nonNegativeInt,
  cache_write: nonNegativeInt,
  output: nonNegativeInt,
  total: nonNegativeInt,
});
export type TokenCounts = z.infer<typeof TokenCountsSchema>;

/**
 * Provider replay data (a thinking signature, an encrypted reasoning item, a provider-specific
 * field name...). Carried opaquely through stream, trace and resume, and never rewritten.
 */
export const FidelitySchema = z.record(anyString, anyValue);
export type Fidelity = z.infer<typeof FidelitySchema>;

/** Who wrote a text message: a human, the parent agent of a subagent, the harness or a server. */
export const SenderSchema = z.enum(["user", "parent_agent", "harness", "server"]);
export type Sender = z.infer<typeof SenderSchema>;

export const PermissionSchema = z.enum(["r", "rw"]);
export type Permission = z.infer<typeof PermissionSchema>;

/**
 * The approval modes, defined here once for every package and the web app: "--approve takes
 * four modes: allow-all (default) / deny-all / read-only / always-ask", and the server and web
 * offer "the same four modes, set per Session". A mode's decision names it as its source.
 * `plan` is plan mode: reading tools run, every other call is refused without asking, and the
 * task's answer is a plan for the person to approve.
 */
export const APPROVAL_MODES = ["allow-all", "deny-all", "read-only", "always-ask", "plan"] as const;
export const ApprovalModeSchema = z.enum(APPROVAL_MODES);
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
