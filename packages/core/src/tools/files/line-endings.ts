// A file keeps its own line endings and byte order mark through edit_file and apply_patch.
// read_file shows lines without their "\r" and models write "\n" anyway, so text from the model
// is matched with its line breaks normalized and written back in the file's own line ending.

/** U+FEFF at the start of a UTF-8 file: part of the encoding, kept on write, never matched or shown. */
export const BYTE_ORDER_MARK = "\uFEFF";

export type LineBreak = "\n" | "\r\n" | "\r";

export interface TextFile {
  /** Whether the text started with a byte order mark. */
  bom: boolean;
  /** The text after the byte order mark. */
  body: string;
  /**
   * A lone "\r" ends a line only in a file without any "\n" (the old Mac convention); in every
   * other file it is a character of its line, as read_file shows it.
   */
  crOnly: boolean;
  /** The line break the file uses most; on a tie the first one in the file; "\n" in a file without any. */
  lineBreak: LineBreak;
}

/** The pattern of one line break (global: for matchAll and replace). */
export function lineBreakPattern(crOnly: boolean): RegExp {
  return crOnly ? /\r\n|\r|\n/g : /\r\n|\n/g;
}

export function textFileOf(text: string): TextFile {
  const bom = text.startsWith(BYTE_ORDER_MARK);
  const body = bom ? text.slice(BYTE_ORDER_MARK.length) : text;
  const crOnly = body.includes("\r") && !body.includes("\n");
  const counts = new Map<LineBreak, number>();
  for (const match of body.matchAll(lineBreakPattern(crOnly))) {
    const found = match[0] as LineBreak;
    counts.set(found, (counts.get(found) ?? 0) + 1);
  }
  // A Map iterates in insertion order, so the first break seen wins a tie.
  let lineBreak: LineBreak = "\n";
  let most = 0;
  for (const [found, count] of counts) {
    if (count > most) {
      lineBreak = found;
      most = count;
    }
  }
  return { bom, body, crOnly, lineBreak };
}

/** The full text of a file: its byte order mark (when it had one) and its body. */
export function fileText(file: Pick<TextFile, "bom">, body: string): string {
  return file.bom ? `${BYTE_ORDER_MARK}${body}` : body;
}

/** `text` with every line break written as `lineBreak` (a lone "\r" is a break only in a `crOnly` file). */
export function withLineBreaks(text: string, lineBreak: LineBreak, crOnly: boolean): string {
  return text.replace(lineBreakPattern(crOnly), lineBreak);
}

/** The one line break `text` uses, when it has breaks and all of them are the same. */
export function uniformLineBreak(text: string, crOnly: boolean): LineBreak | undefined {
  let seen: LineBreak | undefined;
  for (const match of text.matchAll(lineBreakPattern(crOnly))) {
    const found = match[0] as LineBreak;
    if (seen !== undefined && seen !== found) return undefined;
    seen = found;
  }
  return seen;
}

/** Text with every line break as "\n" (as read_file shows it), and the way back to offsets in the original. */
export interface LineView {
  text: string;
  /** The offset in the original text of an offset in `text` (an offset at a "\n" that was "\r\n" maps to its "\r"). */
  rawOffset(viewOffset: number): number;
}

export function lineView(text: string, crOnly: boolean): LineView {
  // Only "\r\n" changes length when normalized; a lone "\r" becomes "\n" in place.
  const pairs: number[] = [];
  for (let at = text.indexOf("\r\n"); at !== -1; at = text.indexOf("\r\n", at + 2)) {
    pairs.push(at - pairs.length);
  }
  let view = pairs.length > 0 ? text.replace(/\r\n/g, "\n") : text;
  if (crOnly) view = view.replace(/\r/g, "\n");
  return {
    text: view,
    rawOffset(viewOffset) {
      // Every pair whose "\n" lies before the offset added one character to the original.
      let low = 0;
      let high = pairs.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (pairs[middle]! < viewOffset) low = middle + 1;
        else high = middle;
      }
      return viewOffset + low;
    },
  };
}
