// How many terminal columns a string takes, so that the columns of a table line up: styling
// sequences take none, combining marks and zero-width characters none, East Asian wide
// characters and emoji two.

/** The sequences Penguin's own styling adds (SGR: `ESC [ … m`). */
const STYLE_SEQUENCE = /\u001b\[[0-9;]*m/g;

/** Code points that take no column: combining marks and variation selectors (Mn, Me), format characters such as the zero-width joiner (Cf). */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Emoji shown as pictures (two columns). */
const WIDE_EMOJI = /^\p{Extended_Pictographic}$/u;

/** Ranges of East Asian wide and fullwidth characters (two columns), as [first, last] code points. */
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe30, 0xfe4f], // CJK compatibility forms
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x20000, 0x3fffd], // CJK extensions B and later
];

function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (ZERO_WIDTH.test(char)) return 0;
  if (WIDE_RANGES.some(([first, last]) => code >= first && code <= last)) return 2;
  // Pictographs below U+2300 (©, ™, ‼) are shown one column wide unless a selector asks otherwise.
  if (code >= 0x2300 && WIDE_EMOJI.test(char)) return 2;
  return 1;
}

/** Columns `text` takes on a terminal (one line, styling ignored). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(STYLE_SEQUENCE, "")) width += charWidth(char);
  return width;
}

/** `text` padded with spaces to `width` columns, on the side `align` says. */
export function padToWidth(text: string, width: number, align: "left" | "right" | "center" | null): string {
  const gap = Math.max(0, width - displayWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}
