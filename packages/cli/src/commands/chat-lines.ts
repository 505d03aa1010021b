import { createInterface } from "node:readline";
import { EXIT_COMPLETED, EXIT_TASK_FAILED } from "../exit-codes.js";
import { terminalAsk } from "../prompts/approval-prompt.js";
import { terminalAnswerer } from "../prompts/question-prompt.js";
import { textModeFor } from "../render/assistant-text.js";
import { TerminalRenderer } from "../render/terminal-renderer.js";
import { closedOutputNote, whenOutputCloses } from "../session/closed-output.js";
import { onEndSignals, signalExitCode } from "../terminal/end-signals.js";
import { Chat, type ChatStart } from "./chat-session.js";
import { parseSlash } from "./chat-slash.js";

/** Lines piped on stdin: each line is a prompt or a slash command, run one after another. */
export async function chatOnLines(start: ChatStart): Promise<number> {
  const { opts, style } = start;
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: process.stderr,
    style,
    text: textModeFor(process.stdout),
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
  });
  let code = EXIT_COMPLETED;
  const noTerminal = {
    interactive: false,
    noTerminal:
      process.stdin.isTTY === true ? "neither stdout nor stderr is a terminal" : "stdin is not a terminal",
    style,
    print: (line: string) => renderer.line(line),
    onCtrlC: () => {},
    question: async () => "",
  };
  const ask = terminalAsk(noTerminal);
  const chat = new Chat(
    start,
    renderer,
    ask,
    (c) => {
      code = c;
    },
    terminalAnswerer(noTerminal),
  );
  await chat.open(start.resume);
  const onSigint = () => {
    if (!chat.ctrlC.press()) void chat.exit(EXIT_TASK_FAILED).then(() => process.exit(code));
  };
  process.on("SIGINT", onSigint);
  const lines = createInterface({ input: process.stdin, terminal: false });
  // SIGTERM or SIGHUP ends the chat: the running task stops as after Ctrl-C, the session is
  // disposed and the exit code is 128 + the signal's number; a second one exits at once.
  let endedBy: number | undefined;
  const offEndSignals = onEndSignals((signal, count) => {
    endedBy = signalExitCode(signal);
    if (count > 1) {
      const exitCode = endedBy;
      void chat.exit(exitCode).then(() => process.exit(exitCode));
      return;
    }
    if (chat.ctrlC.abort(`ended by ${signal}`)) chat.say(style.yellow(`${signal}: stopping the task…`));
    lines.close();
  });
  // A reader that closes our output ends the chat: the running task stops, no more lines are read.
  let outputClosed = false;
  let interrupted = false;
  whenOutputCloses((stream, error) => {
    outputClosed = true;
    if (chat.ctrlC.abort(`${stream} was closed`)) {
      interrupted = true;
      chat.say(style.yellow(closedOutputNote(stream, error)));
    }
    lines.close();
  });
  let exitTyped = false;
  try {
    for await (const line of lines) {
      if (outputClosed || endedBy !== undefined) break;
      const slash = parseSlash(line);
      if (slash) {
        if (!(await chat.slash(slash.name, slash.arg))) {
          exitTyped = true;
          break;
        }
      } else if (line.trim() !== "") {
        await chat.prompt(line);
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
  await chat.exit(endedBy ?? code);
  offEndSignals();
  if (endedBy !== undefined) return endedBy;
  if (interrupted) return EXIT_TASK_FAILED;
  // /exit ends the chat as it does at a terminal (0); at the end of the input a script learns
  // how the last task went.
  if (exitTyped) return code;
  return chat.lastStatus === "completed" ? code : EXIT_TASK_FAILED;
}
