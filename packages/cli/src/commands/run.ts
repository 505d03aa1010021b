import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type ApproveFn,
  allowAll,
  alwaysAsk,
  createAgent,
  denyAll,
  type RunInput,
  readOnly,
  type SessionBudget,
  type ThinkingLevel,
} from "@penguin/core";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { resolveModelRef } from "../model-choice.js";
import { askOnTerminal } from "../prompts/approval-prompt.js";
import { readStdin } from "../prompts/stdin.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { TerminalRenderer } from "../render/terminal-renderer.js";

export interface RunOptions {
  message?: string;
  model?: string;
  workspace: string;
  approve: string;
  maxTurns?: string;
  thinking?: string;
  attach: string[];
  budgetTokens?: string;
  budgetCost?: string;
  budgetTime?: string;
  resume?: string;
  json?: boolean;
  fullOutput?: boolean;
  showThinking?: boolean;
  dataDir?: string;
}

const APPROVAL_MODES = ["allow-all", "deny-all", "read-only", "always-ask"] as const;

function approvalFor(mode: string): ApproveFn {
  switch (mode) {
    case "allow-all":
      return allowAll;
    case "deny-all":
      return denyAll;
    case "read-only":
      return readOnly(askOnTerminal);
    case "always-ask":
      return alwaysAsk(askOnTerminal);
    default:
      throw new UsageError(`unknown approval mode "${mode}": use one of ${APPROVAL_MODES.join(", ")}`);
  }
}

const THINKING_LEVELS: readonly ThinkingLevel[] = ["none", "low", "medium", "high", "max"];

function parseThinking(value: string | undefined): ThinkingLevel | undefined {
  if (value === undefined) return undefined;
  if (!(THINKING_LEVELS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown thinking level "${value}": use one of ${THINKING_LEVELS.join(", ")}`);
  }
  return value as ThinkingLevel;
}

function parsePositive(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} takes a positive ${integer ? "whole " : ""}number, not "${value}"`);
  }
  return n;
}

function budgetFrom(opts: RunOptions): SessionBudget | undefined {
  const maxTokens = parsePositive("--budget-tokens", opts.budgetTokens, true);
  const maxCostUsd = parsePositive("--budget-cost", opts.budgetCost, false);
  const seconds = parsePositive("--budget-time", opts.budgetTime, false);
  if (maxTokens === undefined && maxCostUsd === undefined && seconds === undefined) return undefined;
  return { maxTokens, maxCostUsd, maxWallMs: seconds === undefined ? undefined : Math.round(seconds * 1000) };
}

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp)$/i;

/** `--attach` files: images go to the model as images (or as paths for text-only models), the rest as paths. */
function inputWith(prompt: string, attachments: string[]): RunInput {
  if (attachments.length === 0) return prompt;
  const images: string[] = [];
  const files: string[] = [];
  for (const file of attachments) {
    const absolute = resolve(file);
    if (!existsSync(absolute)) throw new UsageError(`cannot attach ${file}: no such file`);
    (IMAGE_EXTENSIONS.test(absolute) ? images : files).push(absolute);
  }
  return { text: prompt, images, files };
}

/** `penguin run`: one task, streamed to the terminal (or as JSON lines), then exit. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const workspaceDir = resolve(opts.workspace);
  if (!existsSync(workspaceDir) || !statSync(workspaceDir).isDirectory()) {
    throw new UsageError(
      `workspace ${workspaceDir} is not an existing folder: create it or pass --workspace <dir>`,
    );
  }
  const approve = approvalFor(opts.approve);
  const maxTurns = parsePositive("--max-turns", opts.maxTurns, true);
  const thinkingLevel = parseThinking(opts.thinking);
  const budget = budgetFrom(opts);
  let prompt = opts.message;
  if (prompt === undefined && !process.stdin.isTTY) prompt = await readStdin();
  if (prompt === undefined || prompt.trim() === "") {
    throw new UsageError('no task given: pass -m "<prompt>" or pipe the prompt on stdin');
  }

  const input = inputWith(prompt, opts.attach);

  const agent = await createAgent({ dataRoot: opts.dataDir });
  const session = opts.resume
    ? await agent.resumeSession(opts.resume)
    : await agent.createSession({ workspaceDir, model: resolveModelRef(opts.model), thinkingLevel, budget });

  const style = createStyle(colourEnabled(process.stderr));
  const renderer = new TerminalRenderer({
    out: process.stdout,
    err: process.stderr,
    style,
    fullOutput: opts.fullOutput,
    showThinking: opts.showThinking,
  });

  // First Ctrl-C interrupts the task (the session stays resumable); a second one exits.
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) controller.abort(new Error("interrupted by the user (Ctrl-C)"));
    else {
      void session.dispose().finally(() => process.exit(130));
    }
  };
  process.on("SIGINT", onSigint);

  let status = "completed";
  try {
    for await (const message of session.run(input, { approve, signal: controller.signal, maxTurns })) {
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(message)}\n`);
      } else {
        renderer.render(message);
      }
      if (message.type === "event_msg" && message.payload.type === "task_end")
        status = message.payload.status;
    }
  } finally {
    process.off("SIGINT", onSigint);
    await session.dispose();
  }
  if (!opts.json) renderer.finish(session.tracePath);
  else process.stderr.write(`trace: ${session.tracePath}\n`);
  return status === "completed" ? EXIT_COMPLETED : EXIT_TASK_FAILED;
}
