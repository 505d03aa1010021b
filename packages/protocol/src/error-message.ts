/**
 * The text to show for something caught: an `Error`'s message, or the thrown value as a string
 * (code may throw anything). One helper, so every package words a caught failure the same way.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The stack of a caught `Error` (its message when it has none), or the thrown value as a string:
 * for the "internal error" report of a crash, where the stack is what a bug report needs.
 */
export function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
