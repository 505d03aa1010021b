import { homedir } from "node:os";

/** "2026-11-30 10:04" in the local time zone: what a person at the terminal reads. */
export function formatLocalTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `1.2 KB`, `3.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A path under the home folder written with `~`, so long workspace paths fit a column. */
export function tildePath(path: string, home: string = homedir()): string {
  if (home && home !== "/" && (path === home || path.startsWith(`${home}/`)))
    return `~${path.slice(home.length)}`;
  return path;
}

/**
 * Columns padded to the widest cell. `width` measures what the reader sees, so cells that carry
 * colour codes line up with plain ones. The last column is never padded (no trailing blanks).
 */
export function formatTable(rows: readonly (readonly string[])[], gap = "  "): string[] {
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visible(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat(widths[i] - visible(cell))))
      .join(gap),
  );
}

/** Shortens one line to `max` characters with an ellipsis. */
export function truncateLine(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}
