import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { ApprovalPolicy, AskFn, SessionBudget } from "@penguin/core";
import { policyForMode } from "@penguin/core";
import { APPROVAL_MODES, type ApprovalMode, THINKING_LEVELS, type ThinkingLevel } from "@penguin/state";
import { UsageError } from "../exit-codes.js";

/** "--approve takes four modes: allow-all (default) / deny-all / read-only / always-ask". */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "allow-all";

export function checkApprovalMode(mode: string): ApprovalMode {
  const known = APPROVAL_MODES.find((name) => name === mode);
  if (known === undefined) {
    throw new UsageError(`unknown approval mode "${mode}": use one of ${APPROVAL_MODES.join(", ")}`);
  }
  return known;
}

/** The engine's policy for a mode; `ask` answers the calls that read-only and always-ask defer. */
export function approvalPolicy(mode: string, ask: AskFn): ApprovalPolicy {
  return policyForMode(checkApprovalMode(mode), ask);
}

export function parseThinking(value: string | undefined): ThinkingLevel | undefined {
  if (value === undefined) return undefined;
  const known = THINKING_LEVELS.find((level) => level === value);
  if (known === undefined) {
    throw new UsageError(`unknown thinking level "${value}": use one of ${THINKING_LEVELS.join(", ")}`);
  }
  return known;
}

export function parsePositive(flag: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} takes a positive ${integer ? "whole " : ""}number, not "${value}"`);
  }
  return n;
}

export interface BudgetFlags {
  budgetTokens?: string;
  budgetCost?: string;
  budgetTime?: string;
}

export function budgetFrom(opts: BudgetFlags): SessionBudget | undefined {
  const maxTokens = parsePositive("--budget-tokens", opts.budgetTokens, true);
  const maxCostUsd = parsePositive("--budget-cost", opts.budgetCost, false);
  const seconds = parsePositive("--budget-time", opts.budgetTime, false);
  if (maxTokens === undefined && maxCostUsd === undefined && seconds === undefined) return undefined;
  return { maxTokens, maxCostUsd, maxWallMs: seconds === undefined ? undefined : Math.round(seconds * 1000) };
}

/** The workspace folder as an absolute path; a usage error when it is not an existing folder. */
export function existingWorkspace(dir: string): string {
  const workspaceDir = resolve(dir);
  if (!existsSync(workspaceDir) || !statSync(workspaceDir).isDirectory()) {
    throw new UsageError(
      `workspace ${workspaceDir} is not an existing folder: create it or pass --workspace <dir>`,
    );
  }
  return workspaceDir;
}

/** The flags of `penguin run` and `penguin chat` that say how a session runs. */
export interface SessionFlags extends BudgetFlags {
  /** Undefined: the current folder. */
  workspace?: string;
  approve: string;
  /** `--plan`: plan mode, the same as `--approve plan`. */
  plan?: boolean;
  maxTurns?: string;
  thinking?: string;
  /** `--profile`: the execution profile of a new session. */
  profile?: string;
}

export interface CheckedSessionFlags {
  workspaceDir: string;
  approvalMode: ApprovalMode;
  maxTurns: number | undefined;
  thinkingLevel: ThinkingLevel | undefined;
  budget: SessionBudget | undefined;
}

/**
 * Every session flag checked before anything opens, so a wrong one is a usage error, never a
 * half-started session; the first wrong one in this order is the one reported.
 */
export function checkSessionFlags(opts: SessionFlags): CheckedSessionFlags {
  // `--plan` is `--approve plan`: written into `approve`, so every reader of the mode sees it.
  if (opts.plan) {
    if (opts.approve !== DEFAULT_APPROVAL_MODE && opts.approve !== "plan")
      throw new UsageError(`--plan is plan mode; it cannot be used with --approve ${opts.approve}`);
    opts.approve = "plan";
  }
  return {
    workspaceDir: existingWorkspace(opts.workspace ?? process.cwd()),
    approvalMode: checkApprovalMode(opts.approve),
    maxTurns: parsePositive("--max-turns", opts.maxTurns, true),
    thinkingLevel: parseThinking(opts.thinking),
    budget: budgetFrom(opts),
  };
}

/**
 * A resumed session keeps the model and workspace its trace records, so `--model` and
 * `--workspace` given with `--resume` would be ignored: they are refused instead. (`$PENGUIN_MODEL`
 * is a default for new sessions, not a request, and does not count.)
 */
export function refuseWithResume(opts: { model?: string; workspace?: string; profile?: string }): void {
  for (const [flag, value, what] of [
    ["--model", opts.model, "model and workspace"],
    ["--workspace", opts.workspace, "model and workspace"],
    ["--profile", opts.profile, "execution profile"],
  ] as const) {
    if (value !== undefined) {
      throw new UsageError(`${flag} cannot be used with --resume: a resumed session keeps its own ${what}`);
    }
  }
}
