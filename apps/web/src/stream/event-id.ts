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
