import { execa, type ResultPromise } from "execa";
import { CLI_BIN } from "./helpers.js";

const shellQuote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;

/** What a person sees: the terminal's bytes without cursor and colour codes. */
export const visible = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");

/**
 * `penguin` on a real pseudo-terminal (util-linux `script`): keys are written to the terminal as
 * a person types them (Ctrl-C is the byte 0x03, which the terminal turns into an interrupt), and
 * everything the program prints to stdout and stderr is read back from it.
 */
export class TerminalRun {
  private raw = "";
  private readonly child: ResultPromise;

  /** `stderrFile`: stderr goes to this file instead of the terminal (`penguin chat 2>log`). */
  constructor(args: string[], env: Record<string, string>, opts: { stderrFile?: string } = {}) {
    // `exec`: `script` runs the command through $SHELL, else /bin/sh (as on CI, where SHELL is
    // unset). A shell left waiting in the terminal's foreground group receives Ctrl-C too, and
    // dash dies of it, so `script` would report the shell's 130 instead of penguin's exit code.
    const redirect = opts.stderrFile === undefined ? "" : ` 2>${shellQuote(opts.stderrFile)}`;
    const command = `exec ${[process.execPath, CLI_BIN, ...args].map(shellQuote).join(" ")}${redirect}`;
    this.child = execa("script", ["-qfec", command, "/dev/null"], {
      env: { NO_COLOR: "1", TERM: "xterm", ...env },
      extendEnv: true,
      stdin: "pipe",
      reject: false,
      timeout: 90_000,
    });
    this.child.stdout?.on("data", (chunk: Buffer) => {
      this.raw += chunk.toString("utf8");
    });
  }

  get screen(): string {
    return visible(this.raw);
  }

  /**
   * The screen without the status lines that were erased (`penguin run` draws one at a line's
   * start and erases it with CR and erase-line before it prints anything else).
   */
  get lines(): string {
    return visible(this.raw.replace(/[^\n]*\r\u001b\[2K/g, ""));
  }

  /** Everything the terminal received, escape sequences included. */
  get bytes(): string {
    return this.raw;
  }

  /** Resolves once the screen shows `pattern` at least `count` times. */
  async waitFor(pattern: string | RegExp, count = 1, timeoutMs = 20_000): Promise<void> {
    const re =
      typeof pattern === "string"
        ? new RegExp(escapeRegExp(pattern), "g")
        : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    const deadline = Date.now() + timeoutMs;
    while ((this.screen.match(re)?.length ?? 0) < count) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${re} (x${count}); the screen shows:\n${this.screen}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  type(text: string): void {
    this.child.stdin?.write(text);
  }

  async exitCode(): Promise<number | undefined> {
    const r = await this.child;
    return r.exitCode;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Process ids whose command line has these words (e.g. a `sleep 987` the test started through Penguin). */
export async function processesRunning(...words: string[]): Promise<number[]> {
  const { readdirSync, readFileSync } = await import("node:fs");
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (words.every((w, i) => argv[i] === w)) found.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return found;
}
