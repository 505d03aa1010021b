// Text that came from outside Penguin (a tool's output, a hook's reason, an MCP server's
// progress) is printed among Penguin's own lines. Core keeps ESC in it (so the model still sees an
// ANSI sequence as one), but at the terminal a sequence would recolour, move the cursor or clear
// the screen. Sequences are dropped here, and a lone ESC is shown as a visible symbol.

/** CSI sequences (`ESC [ … final`): colours, cursor moves, erasing. */
const CSI_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]/g;
/** OSC sequences (`ESC ] … BEL` or `ESC ] … ESC \`): window titles, hyperlinks. */
const OSC_SEQUENCE = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
/** Any other ESC (two-character sequences such as `ESC c`, which resets the terminal). */
const LONE_ESCAPE = /\u001b/g;
/** How a lone ESC is shown: the Unicode symbol for ESC. */
export const ESCAPE_SYMBOL = "\u241B";

/** `text` without terminal control sequences, safe to print. */
export function terminalSafe(text: string): string {
  if (!text.includes("\u001b")) return text;
  return text.replace(OSC_SEQUENCE, "").replace(CSI_SEQUENCE, "").replace(LONE_ESCAPE, ESCAPE_SYMBOL);
}

/**
 * C0 controls but tab and newline (a carriage return or backspace rewrites what is shown; BEL
 * rings), DEL, and the C1 controls (U+0080–U+009F: U+009B is a one-character CSI to some
 * terminals).
 */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f]/g;

/**
 * The model's text, made safe for a terminal: no escape sequence and no other control
 * character, only what reads as text (a lone ESC shows as {@link ESCAPE_SYMBOL}).
 */
export function printableText(text: string): string {
  return terminalSafe(text).replace(CONTROL_CHARACTERS, "");
}

/** The most of an unfinished sequence kept back for the next delta (a longer one is not a sequence worth waiting for). */
const HELD_SEQUENCE_MAX_CHARS = 256;

/** An escape sequence that more text may still complete: a lone ESC, or an unterminated CSI or OSC. */
const UNFINISHED_SEQUENCE = /^\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*)?$/;

/**
 * Splits streamed text where an escape sequence starts but has not ended yet, so that the part
 * printed now is made safe whole and the sequence, completed by the next delta, is dropped whole
 * instead of showing half of it.
 */
export function holdUnfinishedSequence(text: string): { ready: string; held: string } {
  const last = text.lastIndexOf("\u001b");
  if (last === -1 || text.length - last > HELD_SEQUENCE_MAX_CHARS) return { ready: text, held: "" };
  const tail = text.slice(last);
  return UNFINISHED_SEQUENCE.test(tail)
    ? { ready: text.slice(0, last), held: tail }
    : { ready: text, held: "" };
}

/** C0 controls but tab and newline, DEL, and the C1 controls. */
const CONTROL_TO_SHOW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with each control character shown as a symbol (ESC as ␛, CR as ␍, a C1 control as
 * `<U+009B>`) instead of acting on the terminal: for what a person must see exactly as the model
 * wrote it, such as a command they are asked to approve.
 */
export function showControls(text: string): string {
  return text.replace(CONTROL_TO_SHOW, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}
