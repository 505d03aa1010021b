import { countNewlineBytes, countNewlines } from "./count-newlines.js";

/** A character beyond Latin-1: text with one needs two bytes per UTF-16 code unit. */
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * A bounded run of text kept as UTF-16 code units in one Buffer used as a ring, addressed by
 * absolute position (unit `n` is the n-th unit ever written).
 *
 * Why not an array of strings: a command streaming hundreds of MB/s makes a new chunk string
 * every few microseconds, and the newest megabyte of them is always alive when the young
 * generation is collected. V8 grows its young generation whenever data keeps surviving, up to
 * its maximum, so a log made of strings inflates the harness's memory by tens of MB while a
 * fast command runs. Text copied into a Buffer lives outside the JavaScript heap: the chunk
 * strings die at once and the young generation stays small.
 *
 * Storage is one byte per unit (Latin-1) while every unit written fits in one, as most command
 * output does, and two bytes (UTF-16LE) from the first one that does not: the held text is
 * re-encoded once. The Buffer starts small and doubles as text arrives, up to the capacity, so a
 * session that prints a few lines costs a few KB, not the whole cap.
 */
export class TextRing {
  private units: Buffer;
  /** Whether units take two bytes (some unit above U+00FF was written). */
  private wide = false;
  /** Absolute position of the oldest unit held. */
  private first = 0;
  /** Absolute position after the newest unit. */
  private next = 0;

  constructor(
    readonly capacityUnits: number,
    initialUnits = 4096,
  ) {
    this.units = Buffer.allocUnsafeSlow(Math.min(capacityUnits, initialUnits));
  }

  get start(): number {
    return this.first;
  }

  get end(): number {
    return this.next;
  }

  get size(): number {
    return this.next - this.first;
  }

  /** Room left before the oldest text has to go. */
  get room(): number {
    return this.capacityUnits - this.size;
  }

  /**
   * Writes `text` after the newest unit; the caller has made room (`dropFront`) first.
   * `knownOneByte`: the caller knows every unit is at most U+00FF (saves a scan of the text).
   */
  write(text: string, knownOneByte = false): void {
    if (text.length > this.room) throw new RangeError("text ring overflow: drop old text first");
    if (!this.wide && !knownOneByte && BEYOND_LATIN1.test(text)) this.widen();
    this.reserve(this.size + text.length);
    const slots = this.slots;
    const width = this.width;
    const encoding = this.encoding;
    let written = 0;
    while (written < text.length) {
      const at = (this.next + written) % slots;
      const count = Math.min(text.length - written, slots - at);
      const part = written === 0 && count === text.length ? text : text.slice(written, written + count);
      this.units.write(part, at * width, count * width, encoding);
      written += count;
    }
    this.next += text.length;
  }

  /** Forgets the oldest `count` units. */
  dropFront(count: number): void {
    this.first = Math.min(this.next, this.first + count);
  }

  /**
   * Counts `count` units as written and dropped at once: text longer than the whole ring, whose
   * beginning could never be held. Only when nothing is held.
   */
  skip(count: number): void {
    if (this.size > 0) throw new RangeError("text ring skip while text is held");
    this.first += count;
    this.next += count;
  }

  /** The code unit at absolute position `position` (which must be held). */
  unitAt(position: number): number {
    const slot = position % this.slots;
    return this.wide ? this.units.readUInt16LE(slot * 2) : (this.units[slot] as number);
  }

  /** Newlines between two absolute positions, both within what is held. */
  countNewlines(from: number, to: number): number {
    this.checkRange(from, to);
    if (this.wide) return countNewlines(this.text(from, to));
    const slots = this.slots;
    let count = 0;
    for (let at = from; at < to; ) {
      const slot = at % slots;
      const end = Math.min(to - at, slots - slot) + slot;
      count += countNewlineBytes(this.units.subarray(slot, end));
      at += end - slot;
    }
    return count;
  }

  /** The text between two absolute positions, both within what is held. */
  text(from: number, to: number = this.next): string {
    this.checkRange(from, to);
    const slots = this.slots;
    const width = this.width;
    let result = "";
    for (let at = from; at < to; ) {
      const slot = at % slots;
      const count = Math.min(to - at, slots - slot);
      result += this.units.toString(this.encoding, slot * width, (slot + count) * width);
      at += count;
    }
    return result;
  }

  private checkRange(from: number, to: number): void {
    if (from < this.first || to > this.next || from > to) {
      throw new RangeError(`text ring read ${from}..${to} outside ${this.first}..${this.next}`);
    }
  }

  private get width(): 1 | 2 {
    return this.wide ? 2 : 1;
  }

  private get encoding(): "latin1" | "utf16le" {
    return this.wide ? "utf16le" : "latin1";
  }

  /** Units the Buffer has room for now. */
  private get slots(): number {
    return this.units.length / this.width;
  }

  /** Switches to two bytes per unit, keeping what is held. */
  private widen(): void {
    const held = this.text(this.first);
    const slots = this.slots;
    this.wide = true;
    this.relayout(held, slots);
  }

  /** Grows the Buffer (doubling, up to the capacity) so that `units` fit; keeps what is held. */
  private reserve(units: number): void {
    const slots = this.slots;
    if (units <= slots) return;
    let grown = slots;
    while (grown < units) grown *= 2;
    this.relayout(this.text(this.first), Math.min(grown, this.capacityUnits));
  }

  /** A new Buffer of `slots` units at the current width, holding `held` at its positions. */
  private relayout(held: string, slots: number): void {
    this.units = Buffer.allocUnsafeSlow(slots * this.width);
    this.next = this.first;
    this.write(held, !this.wide);
  }
}
