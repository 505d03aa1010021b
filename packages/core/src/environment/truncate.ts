// "head-kept truncation once output exceeds maxOutputLength": the first `limit` characters
// (UTF-16 code units, as JavaScript counts them) pass, everything after is dropped. Output of
// exactly `limit` characters is not truncated; one more is.

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export class HeadWindow {
  private kept = 0;
  private cut = false;

  /** `limit <= 0` disables truncation. */
  constructor(private readonly limit: number) {}

  get truncated(): boolean {
    return this.cut;
  }

  /** Feeds text; returns the part that is inside the window. */
  push(text: string): string {
    if (this.limit <= 0) return text;
    if (this.cut) return "";
    const room = this.limit - this.kept;
    if (text.length <= room) {
      this.kept += text.length;
      return text;
    }
    this.cut = true;
    let end = room;
    // Never split a surrogate pair: the head would end in half a character.
    if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    this.kept += end;
    return text.slice(0, end);
  }
}
