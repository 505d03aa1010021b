import { NOTICE_TYPE_PATTERN, type NoticeDelivery } from "@penguin/state";

// What a notice from outside may be: a type no handler of Penguin's own uses, a short summary and
// a little JSON data. Everything past these bounds is refused with a reason, never cut.

/** "Types starting `job.` and `agent.` are Penguin's own": refused from outside. */
export const RESERVED_NOTICE_PREFIXES = ["job.", "agent."] as const;
/** A notice's summary: one short paragraph the model reads (UTF-8 bytes). */
export const NOTICE_SUMMARY_MAX_BYTES = 4 * 1024;
/** A notice's data, as JSON text (UTF-8 bytes): a payload to read, not a file to carry. */
export const NOTICE_DATA_MAX_BYTES = 64 * 1024;

/** What `session.notify`, the server route and the CLI hand in. */
export interface NoticeInput {
  /** e.g. `deploy.done`: dot-separated words; a handler's `type` decides who takes it. */
  type: string;
  summary: string;
  /** Any JSON value. */
  data?: unknown;
}

export type NoticeRefusal = "invalid" | "reserved_type" | "too_large" | "no_handler" | "closed";

export type NotifyOutcome =
  | {
      status: "accepted";
      noticeId: string;
      /** The handler that took it (`.agents/events/<handler>.md`). */
      handler: string;
      delivery: NoticeDelivery;
    }
  | { status: "refused"; reason: NoticeRefusal; message: string };

export type Refused = Extract<NotifyOutcome, { status: "refused" }>;

export const refused = (reason: NoticeRefusal, message: string): Refused => ({
  status: "refused",
  reason,
  message,
});

/** The notice's reserved prefix, when its type starts with one of Penguin's own. */
export function reservedPrefixOf(type: string): string | undefined {
  return RESERVED_NOTICE_PREFIXES.find((prefix) => type.startsWith(prefix));
}

/**
 * Checks a notice's shape and size: its data as the JSON text it is kept as, or the refusal.
 * `fromOutside`: the reserved prefixes are refused.
 */
export function checkNotice(
  input: NoticeInput,
  fromOutside: boolean,
): { ok: true; data?: unknown } | { ok: false; refusal: Refused } {
  if (typeof input.type !== "string" || !NOTICE_TYPE_PATTERN.test(input.type)) {
    return {
      ok: false,
      refusal: refused(
        "invalid",
        `notice type ${JSON.stringify(input.type)} is not valid: use dot-separated words of letters, digits, '_' or '-', such as deploy.done`,
      ),
    };
  }
  const reserved = reservedPrefixOf(input.type);
  if (fromOutside && reserved) {
    return {
      ok: false,
      refusal: refused(
        "reserved_type",
        `notice type ${input.type} is refused: types starting with ${RESERVED_NOTICE_PREFIXES.join(" or ")} are Penguin's own; pick another prefix`,
      ),
    };
  }
  if (typeof input.summary !== "string" || input.summary.trim() === "") {
    return { ok: false, refusal: refused("invalid", "a notice needs a non-empty summary") };
  }
  const summaryBytes = Buffer.byteLength(input.summary, "utf8");
  if (summaryBytes > NOTICE_SUMMARY_MAX_BYTES) {
    return {
      ok: false,
      refusal: refused(
        "too_large",
        `the notice's summary has ${summaryBytes} bytes; at most ${NOTICE_SUMMARY_MAX_BYTES} are taken (put details in data)`,
      ),
    };
  }
  if (input.data === undefined) return { ok: true };
  let json: string | undefined;
  try {
    json = JSON.stringify(input.data);
  } catch {
    json = undefined;
  }
  if (json === undefined) {
    return { ok: false, refusal: refused("invalid", "the notice's data must be a JSON value") };
  }
  const dataBytes = Buffer.byteLength(json, "utf8");
  if (dataBytes > NOTICE_DATA_MAX_BYTES) {
    return {
      ok: false,
      refusal: refused(
        "too_large",
        `the notice's data has ${dataBytes} bytes as JSON; at most ${NOTICE_DATA_MAX_BYTES} are taken`,
      ),
    };
  }
  // A copy: later changes to the caller's object do not change the notice.
  return { ok: true, data: JSON.parse(json) as unknown };
}
