/**
 * What went wrong, as a stable code a front end can map (the server answers `session_not_found`
 * with 404, `session_exists` with 409, `invalid_session_id` and `invalid_import` with 400).
 */
export type TraceErrorCode =
  | "invalid_session_id"
  | "session_not_found"
  | "session_exists"
  | "invalid_import"
  | "invalid_record"
  | "writer_closed"
  | "not_a_session";

/**
 * Thrown for caller and user-input mistakes (a bad id, a missing session, an invalid import file).
 * Bad lines inside a trace are never thrown: readers report them as diagnostics.
 */
export class TraceError extends Error {
  readonly code: TraceErrorCode;

  constructor(code: TraceErrorCode, message: string) {
    super(message);
    this.name = "TraceError";
    this.code = code;
  }
}
