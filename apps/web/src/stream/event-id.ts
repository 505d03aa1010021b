/**
 * The server's event ids are `<epoch>-<seq>`: the epoch is fixed for one server process, seq counts
 * up per channel. True when `id` is at or before `reference`, so a client that has already loaded
 * the state up to `reference` must skip it. Ids of another epoch (a restarted server) never are.
 */
export function isAtOrBefore(id: string, reference: string | undefined): boolean {
  if (reference === undefined || id === "") return false;
  const a = parse(id);
  const b = parse(reference);
  if (!a || !b || a.epoch !== b.epoch) return false;
  return a.seq <= b.seq;
}

function parse(id: string): { epoch: string; seq: number } | undefined {
  const match = /^([0-9a-z]+)-(\d{1,15})$/.exec(id);
  return match ? { epoch: match[1], seq: Number(match[2]) } : undefined;
}

/**
 * The buffered events (oldest first) a seed up to `reference` does not include yet: those after
 * `reference` itself when the buffer holds it, and those not at or before it by sequence number.
 * The position matters with several server instances, whose ids mix in one stream: an event keeps
 * the id of the process that published it, so seq numbers of different epochs do not compare.
 */
export function afterSeed<T extends { id: string }>(items: readonly T[], reference: string | undefined): T[] {
  const cut = reference === undefined ? -1 : items.findIndex((item) => item.id === reference);
  return items.filter((item, index) => item.id !== "" && index > cut && !isAtOrBefore(item.id, reference));
}
