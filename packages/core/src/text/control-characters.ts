// Text from outside Penguin (a command's output, an MCP server's result, a hook's output) goes
// to the model, the trace and the user's terminal. Raw control characters do harm in all three:
// NUL makes some provider APIs and databases reject the text, and the other C0 controls (bell,
// backspace, form feed …) rewrite what a terminal shows. Every such text passes this one rule.

/** What an unsafe control character becomes: visible, and accepted by every provider. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/**
 * "NUL and the other C0 controls except tab, newline, carriage return and ESC become U+FFFD."
 * ESC is kept so that ANSI sequences from tools that ignore NO_COLOR stay recognisable as such
 * instead of turning into stray `[31m` fragments; a terminal front end neutralizes them.
 */
const UNSAFE_CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F]/g;

export function replaceControlCharacters(text: string): string {
  return text.replace(UNSAFE_CONTROL_CHARACTERS, REPLACEMENT_CHARACTER);
}
