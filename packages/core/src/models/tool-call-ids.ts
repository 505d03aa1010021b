/**
 * Session-scoped tool call ids. Some providers repeat ids (several calls named after their
 * function) or omit them; the harness needs every call of a session to have its own id, since
 * approvals, outputs and traces are keyed by it. A repeated id gets a `#n` suffix on the way in
 * (`read_file`, `read_file#2`, ...) and loses it on the way out, so the provider sees its own ids.
 */
export interface ToolCallIdRegistry {
  /** The session-unique id for a call the provider named `providerId` (or left unnamed). */
  intern(providerId: string | undefined): string;
  /** Marks an id as taken, e.g. ids found in the context of a resumed session. */
  remember(id: string): void;
  /** The id to send back to the provider for a session id. */
  toWire(id: string): string;
}

/** Suffix separator of a de-duplicated id: `<provider id>#<n>`, n >= 2. */
export const DUPLICATE_ID_SEPARATOR = "#";

const SUFFIXED = /^(.+)#([2-9]|[1-9]\d+)$/;

export function createToolCallIdRegistry(): ToolCallIdRegistry {
  const taken = new Set<string>();
  /** Session id -> provider id, for ids this registry suffixed. */
  const wireIds = new Map<string, string>();
  /** Highest suffix handed out per provider id. */
  const lastSuffix = new Map<string, number>();
  let generated = 0;

  const freshId = (): string => {
    let id: string;
    do id = `call_${++generated}`;
    while (taken.has(id));
    return id;
  };

  return {
    intern(providerId) {
      const base = providerId?.trim() ? providerId : freshId();
      if (!taken.has(base)) {
        taken.add(base);
        return base;
      }
      let n = Math.max(lastSuffix.get(base) ?? 1, 1) + 1;
      while (taken.has(`${base}${DUPLICATE_ID_SEPARATOR}${n}`)) n++;
      const id = `${base}${DUPLICATE_ID_SEPARATOR}${n}`;
      lastSuffix.set(base, n);
      taken.add(id);
      wireIds.set(id, base);
      return id;
    },
    remember(id) {
      if (taken.has(id)) return;
      taken.add(id);
      const match = SUFFIXED.exec(id);
      if (match) {
        const [, base, n] = match;
        wireIds.set(id, base!);
        lastSuffix.set(base!, Math.max(lastSuffix.get(base!) ?? 1, Number(n)));
      }
    },
    toWire(id) {
      return wireIds.get(id) ?? id;
    },
  };
}
