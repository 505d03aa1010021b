/**
 * The widest the command line's help is written: commander's own width for output that is not a
 * terminal, and the most a terminal gets. A help text capped at one width is the same text on every
 * terminal at least that wide, so `penguin --help` can print one made at build time
 * (launch/light-output.ts); a narrower terminal gets its help wrapped to its own width.
 */
export const HELP_WIDTH = 80;

/** The width commander wraps help at on this stream: HELP_WIDTH but for a narrower terminal. */
export function helpWidthFor(stream: { isTTY?: boolean; columns?: number }): number {
  if (!stream.isTTY || typeof stream.columns !== "number" || stream.columns <= 0) return HELP_WIDTH;
  return Math.min(stream.columns, HELP_WIDTH);
}
