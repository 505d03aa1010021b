/**
 * Version of the message format. Recorded in every `session_meta`; bumped (with a changeset
 * saying what changed) whenever a payload gains, loses or changes a field. Readers accept
 * every older version: new fields are optional, old ones are never removed.
 */
export const PROTOCOL_VERSION = 1;
