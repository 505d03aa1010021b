import { errorStack } from "@penguin/protocol";
import { EXIT_COMPLETED, EXIT_TASK_FAILED } from "../exit-codes.js";
import { terminalAsk } from "../prompts/approval-prompt.js";
import { terminalAnswerer } from "../prompts/question-prompt.js";
import { textModeFor } from "../render/assistant-text.js";
import { Screen } from "../render/screen.js";
import { TerminalRenderer } from "../render/terminal-renderer.js";
import { closedOutputNote, whenOutputCloses } from "../session/closed-output.js";
import { ChatTerminal } from "../terminal/chat-terminal.js";
import { onEndSignals, signalExitCode } from "../terminal/end-signals.js";
import { Chat, type ChatStart } from "./chat-session.js";
import { parseSlash } from "./chat-slash.js";

/** A person at a terminal: a line editor, a live status line, questions, steering, Ctrl-C and Ctrl-O. */
export async function chatOnTerminal(start: ChatStart, screenStream: NodeJS.WriteStream): Promise<number> {
  const { opts, style } = start;
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });
  // Prompts typed while no task runs wait here, in order.
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let idleCtrlC = false;
  let chat: Chat | undefined;

  const terminal = new ChatTerminal(process.stdin, screenStream, {
    line: (text) => {
      idleCtrlC = false;
      if (chat?.ctrlC.taskRunning && parseSlash(text) === undefined && text.trim() !== "") {
        if (chat.session.steer(text)) {
          renderer.line(style.dim(`  ↳ steering: ${text} (goes with the next model request)`));
          return;
        }
      }
      queue.push(text);
      wake?.();
    },
    ctrlC: () => {
      if (chat?.ctrlC.press()) return;
      if (terminal.typed !== "") {
        terminal.clearTyped();
        return;
      }
      if (idleCtrlC) {
        closed = true;
        wake?.();
        return;
      }
      idleCtrlC = true;
      renderer.line(style.dim("(press Ctrl-C again, or type /exit, to quit)"));
    },
    ctrlO: () => {
      const last = renderer.lastFoldedOutput;
      if (!last) return;
      renderer.line(style.bold(`── ${last.title} (whole output)`));
      renderer.line(last.text.replace(/\n$/, ""));
      renderer.line(style.dim("──"));
    },
    close: () => {
      closed = true;
      wake?.();
    },
  });
  const screen = new Screen({ out: process.stdout, err: screenStream, live: true, bottom: terminal });
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: screenStream,
    style,
    screen,
    text: textModeFor(process.stdout),
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
    expandHint: "Ctrl-O shows the whole output",
  });
  const ask = terminalAsk({
    interactive: true,
    style,
    print: (line) => renderer.line(line),
    onAsk: (call) => renderer.markShown(call.payload.tool_call_id),
    onCtrlC: () => chat?.ctrlC.press(),
    question: terminal.ask,
  });
  // The terminal is open (raw mode) from here: anything that fails before the chat runs closes
  // it, or the error would leave a terminal that no key can end.
  let current: Chat;
  try {
    const answerer = terminalAnswerer({
      interactive: true,
      style,
      print: (line) => renderer.line(line),
      onCtrlC: () => chat?.ctrlC.press(),
      question: terminal.ask,
    });
    current = new Chat(
      start,
      renderer,
      ask,
      (code) => {
        terminal.close();
        finished(code);
      },
      answerer,
      terminal.ask,
    );
    chat = current;
    await current.open(start.resume);
  } catch (error) {
    terminal.close();
    throw error;
  }
  // The terminal's line discipline is off (raw mode): Ctrl-C reaches us as a key, not a signal.
  // A SIGINT still arrives when someone sends it with kill; treat it like the key.
  const onSigint = () => {
    if (!current.ctrlC.press()) void current.exit(EXIT_TASK_FAILED);
  };
  process.on("SIGINT", onSigint);
  // SIGTERM or SIGHUP (the terminal was closed) ends the chat: the running task stops as after
  // Ctrl-C, the session is disposed and the exit code is 128 + the signal's number.
  let endedBy: number | undefined;
  const offEndSignals = onEndSignals((signal, count) => {
    endedBy = signalExitCode(signal);
    if (count > 1) {
      void current.exit(endedBy);
      return;
    }
    current.ctrlC.abort(`ended by ${signal}`);
    closed = true;
    wake?.();
  });
  // A reader that closes our output (`penguin chat | head`) ends the chat, as Ctrl-D does; a task
  // it interrupts makes the exit code say so.
  let interrupted = false;
  whenOutputCloses((stream, error) => {
    if (current.ctrlC.abort(`${stream} was closed`)) {
      interrupted = true;
      current.say(style.yellow(closedOutputNote(stream, error)));
    }
    closed = true;
    wake?.();
  });
  screen.refresh();

  void (async () => {
    for (;;) {
      while (queue.length === 0 && !closed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (closed) break;
      const text = queue.shift() as string;
      const slash = parseSlash(text);
      if (slash) {
        if (!(await current.slash(slash.name, slash.arg))) break;
      } else if (text.trim() !== "") {
        await current.prompt(text);
      }
      screen.refresh();
    }
    await current.exit(endedBy ?? (interrupted ? EXIT_TASK_FAILED : EXIT_COMPLETED));
  })().catch((error: unknown) => {
    process.stderr.write(`penguin: internal error: ${errorStack(error)}\n`);
    void current.exit(EXIT_TASK_FAILED);
  });

  const code = await done;
  process.off("SIGINT", onSigint);
  offEndSignals();
  return code;
}
