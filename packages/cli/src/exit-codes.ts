/** Documented exit codes of the `penguin` binary (docs/cli.md). */
export const EXIT_COMPLETED = 0;
/** The task failed, was aborted, or hit a limit. */
export const EXIT_TASK_FAILED = 1;
/** Bad usage: unknown flag, missing prompt, invalid model reference, missing workspace. */
export const EXIT_USAGE = 2;

/** An error the user can fix; printed as one line with the fix, never a stack trace. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}
