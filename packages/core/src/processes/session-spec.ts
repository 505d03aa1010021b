import type { CommandExit } from "./command-exit.js";
import type { Platform } from "./platform.js";
import type { IdentityCheck } from "./process-identity.js";

// What a command session is made from: a command to start, or one found again after a restart.

/** The tool that started a session: exec_command sessions and run_command jobs are one kind of thing. */
export type SessionOrigin = "exec_command" | "run_command";

/** `S` is the session type (CommandSession), named by session.ts, which this file must not import. */
export interface CommandSessionSpec<S> {
  id: string;
  cmd: string;
  cwd: string;
  shell: string;
  /** The shell's flags before the command; default a login shell (`-lc`). */
  shellFlags?: readonly string[];
  env: Record<string, string>;
  unreadBufferChars: number;
  platform?: Platform;
  /** Why it runs: run_command's `purpose`, exec_command's call description. */
  purpose?: string;
  origin?: SessionOrigin;
  /** Called once when the command has exited and its output is collected (see `finished`). */
  onFinished?: (session: S) => void;
  /**
   * Where the command writes its stdout and stderr itself (created 0600), instead of a pipe to
   * Penguin: the output is kept, and the command runs on, if Penguin dies. Penguin follows it.
   */
  spoolFile?: string;
  /** Starts the shell through another program (the sandbox's bwrap); absent: the shell itself. */
  launcher?: CommandLauncher;
}

/** Turns the shell's start (`shell args…` in `cwd`) into the program that is spawned instead. */
export type CommandLauncher = (command: { shell: string; args: readonly string[]; cwd: string }) => {
  file: string;
  args: string[];
};

/**
 * A command a crashed Penguin started, found again by a resumed session (see the process
 * registry): still running (`check`, re-attached: its pid was checked to be the same process), or
 * ended with a recorded or unknown exit. Its stdin is not connected any more.
 */
export interface RetainedSessionSpec<S> {
  id: string;
  cmd: string;
  cwd: string;
  purpose?: string;
  origin: SessionOrigin;
  startedAt: number;
  pid: number | undefined;
  unreadBufferChars: number;
  platform?: Platform;
  /** The output spool to read from (none: the output went through a pipe and is lost). */
  spoolFile?: string;
  /**
   * Re-attached: tells whether the process still runs, has ended, or its pid now names another
   * program (polled, since it is not Penguin's child).
   */
  check?: () => IdentityCheck;
  /** How it ended (ignored when `check`). */
  exit?: CommandExit;
  endedAt?: number;
  onFinished?: (session: S) => void;
}
