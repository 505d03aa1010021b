import { type GoalOutcome, goalFinished, type OmniMessage, type TokenCounts } from "@penguin/protocol";
import type { RoundDriver, RoundVerdict } from "../engine/rounds.js";
import type { ModelMessage } from "../engine/types.js";
import { continuationMessage, goalBlock, wrapUpMessage } from "./goal-block.js";
import { goalFilePath, readGoalStatus, writeGoalFile } from "./goal-file.js";
import { MAX_GOAL_ROUNDS } from "./limits.js";

/** `session.run(input, { goal })`: run until the goal is complete or blocked, within a budget. */
export interface GoalOptions {
  /**
   * Tokens the goal may spend: Σ(request total − cache_read) over its requests, its subagents'
   * included. Checked between rounds; once spent, one wrap-up round follows. Default: no budget
   * (the cap of `MAX_GOAL_ROUNDS` rounds still holds).
   */
  budget?: number;
}

/** A goal's budget, checked when a run starts: a whole number of tokens above zero. */
export function checkGoalOptions(goal: GoalOptions): void {
  const { budget } = goal;
  if (budget !== undefined && (!Number.isSafeInteger(budget) || budget <= 0))
    throw new Error(`session.run: goal.budget must be a whole number of tokens above 0 (got ${budget})`);
}

/** What the goal's tokens are counted from: the session's counts, its subagents' included. */
export type SessionTokens = () => TokenCounts;

/**
 * One goal-mode run: writes the goal file, drives the rounds (the `[goal]` block in every request,
 * a continuation when the model stops early, the budget and the round cap between rounds), and
 * makes the `goal_finished` event from how it ended.
 */
export class GoalRun implements RoundDriver {
  readonly goalFile: string;
  private rounds = 0;
  private wrappingUp: string | undefined;
  private ended: { outcome: GoalOutcome; reason?: string } | undefined;
  private taskEnd: { status: string; message?: string } | undefined;
  private readonly tokensAtStart: number;

  private constructor(
    private readonly objective: string,
    private readonly options: GoalOptions,
    private readonly sessionTokens: SessionTokens,
    scratchpadDir: string,
  ) {
    this.goalFile = goalFilePath(scratchpadDir);
    this.tokensAtStart = uncached(sessionTokens());
  }

  /** Starts a goal: its file is written with the objective and `status: active`. */
  static async start(
    objective: string,
    options: GoalOptions,
    scratchpad: { dir: string; tokens: SessionTokens },
  ): Promise<GoalRun> {
    const run = new GoalRun(objective, options, scratchpad.tokens, scratchpad.dir);
    await writeGoalFile(run.goalFile, scratchpad.dir, objective);
    return run;
  }

  /** "Σ(request total − cache_read) over rounds, subagents included". */
  get tokensUsed(): number {
    return Math.max(0, uncached(this.sessionTokens()) - this.tokensAtStart);
  }

  async requestTail(request: { attempt: number }): Promise<ModelMessage[]> {
    // A round is a model request; its retries are the same round.
    if (request.attempt === 1) this.rounds++;
    const status = await readGoalStatus(this.goalFile);
    return [
      goalBlock({
        objective: this.objective,
        goalFile: this.goalFile,
        status,
        wrapUp: this.wrappingUp !== undefined,
      }),
    ];
  }

  async afterRound(round: { idle: boolean }): Promise<RoundVerdict> {
    if (this.wrappingUp !== undefined) {
      // The wrap-up round is the last; a status it recorded is how the goal ended.
      const status = await readGoalStatus(this.goalFile);
      if (status.status === "complete") return this.end("complete");
      if (status.status === "blocked" && !status.invalid) return this.end("blocked", status.reason);
      return this.end("budget_limited", this.wrappingUp);
    }
    if (round.idle) {
      const status = await readGoalStatus(this.goalFile);
      if (status.status === "complete") return this.end("complete");
      if (status.status === "blocked") return this.end("blocked", status.reason);
    }
    const spentWhy = this.spentWhy();
    if (spentWhy !== undefined) {
      this.wrappingUp = spentWhy;
      return { next: "continue", message: wrapUpMessage(spentWhy) };
    }
    return round.idle ? { next: "continue", message: continuationMessage() } : { next: "continue" };
  }

  /** Every message the task records goes by here: its `task_end` says how a cut-short run ended. */
  observe(message: OmniMessage): void {
    if (message.type !== "event_msg" || message.payload.type !== "task_end") return;
    const { status, message: text } = message.payload as { status: string; message?: string };
    this.taskEnd = text !== undefined ? { status, message: text } : { status };
  }

  /** Whether the run has ended, so a `goal_finished` is owed. */
  get finished(): boolean {
    return this.taskEnd !== undefined;
  }

  /**
   * The `goal_finished` event: the outcome the rounds reached, else `aborted` (an interrupt,
   * max_turns or another limit, a request that failed) with the task's own words for why.
   */
  finishedEvent(): OmniMessage {
    const outcome = this.ended ?? {
      outcome: "aborted" as const,
      reason: this.taskEnd?.message ?? `the task ended ${this.taskEnd?.status ?? "before it started"}`,
    };
    return goalFinished({ ...outcome, rounds: this.rounds, tokens_used: this.tokensUsed });
  }

  private end(outcome: GoalOutcome, reason?: string): RoundVerdict {
    this.ended = reason !== undefined ? { outcome, reason } : { outcome };
    return { next: "end" };
  }

  /** Why the goal must wrap up now: its token budget is spent, or the next round is the last. */
  private spentWhy(): string | undefined {
    const { budget } = this.options;
    const used = this.tokensUsed;
    if (budget !== undefined && used >= budget)
      return `the goal's token budget of ${budget} is spent (${used} used)`;
    if (this.rounds >= MAX_GOAL_ROUNDS - 1)
      return `the goal has reached its cap of ${MAX_GOAL_ROUNDS} rounds`;
    return undefined;
  }
}

function uncached(tokens: TokenCounts): number {
  return tokens.total - tokens.cache_read;
}
