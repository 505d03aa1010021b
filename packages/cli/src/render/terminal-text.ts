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
