/**
 * Terminal styling. Colour only when the stream is a TTY and NO_COLOR is not set
 * (https://no-color.org: any non-empty value disables colour).
 */
export interface Style {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
  strike(s: string): string;
}

export function colourEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const id = (s: string) => s;
    return {
      dim: id,
      bold: id,
      red: id,
      green: id,
      yellow: id,
      cyan: id,
      italic: id,
      underline: id,
      strike: id,
    };
  }
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    italic: wrap(3, 23),
    underline: wrap(4, 24),
    strike: wrap(9, 29),
  };
}
