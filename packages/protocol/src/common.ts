import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

/** Why a model request, a tool call or a task ended. */
export const STOP_REASONS = ["completed", "failed", "aborted", "timeout", "malformed", "auth"] as const;

/**
 * The approval modes, defined here once for every package and the web app: "--approve takes
 * four modes: allow-all (default) / deny-all / read-only / always-ask", and the server and web
 * offer "the same four modes, set per Session". A mode's decision names it as its source.
 * `plan` is plan mode: reading tools run, every other call is refused without asking, and the
 * task's answer is a plan for the person to approve.
 */
export const APPROVAL_MODES = ["allow-all", "deny-all", "read-only", "always-ask", "plan"] as const;

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const commonSchemas = onFirstUse(() => {
  const { anyString, anyValue, nonNegativeInt } = fieldSchemas();

  const StopReasonSchema = z.enum(STOP_REASONS);

  /**
   * Token counts of one request or of a whole session. `total` counts every input token
   * (cached or not) plus the output; `cache_read` and `cache_write` are the parts of the input
   * served from or written to the provider's prompt cache.
   */
  const TokenCountsSchema = z.looseObject({
    cache_read: nonNegativeInt,
    cache_write: nonNegativeInt,
    output: nonNegativeInt,
    total: nonNegativeInt,
  });

  /**
   * Provider replay data (a thinking signature, an encrypted reasoning item, a provider-specific
   * field name...). Carried opaquely through stream, trace and resume, and never rewritten.
   */
  const FidelitySchema = z.record(anyString, anyValue);

  /** Who wrote a text message: a human, the parent agent of a subagent, the harness or a server. */
  const SenderSchema = z.enum(["user", "parent_agent", "harness", "server"]);

  const PermissionSchema = z.enum(["r", "rw"]);

  const ApprovalModeSchema = z.enum(APPROVAL_MODES);
  return {
    StopReasonSchema,
    TokenCountsSchema,
    FidelitySchema,
    SenderSchema,
    PermissionSchema,
    ApprovalModeSchema,
  };
});
type Schemas = ReturnType<typeof commonSchemas>;
export type StopReason = z.infer<Schemas["StopReasonSchema"]>;
export type TokenCounts = z.infer<Schemas["TokenCountsSchema"]>;
export type Fidelity = z.infer<Schemas["FidelitySchema"]>;
export type Sender = z.infer<Schemas["SenderSchema"]>;
export type Permission = z.infer<Schemas["PermissionSchema"]>;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
