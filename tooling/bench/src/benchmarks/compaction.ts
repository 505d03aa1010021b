import type { Benchmark, BenchOptions } from "../benchmark.js";
import type { BenchRow } from "../table.js";
import { runScriptedSession, type SessionPlan } from "./compaction-session.js";

// What compaction costs and saves over a long session: the same scripted session (fake model
// over real HTTP, a real command per round, the context growing about 550 tokens a round) once
// in a 32k-token window that forces compactions, once in a window big enough for all of it.
// Tokens are the input tokens of every request, as a provider bills them when nothing is cached;
// the fake model answers at once, so the wall times are the harness's and the rounds' commands'.

/** "a 300-round session under a 32k-token window". */
const FULL_ROUNDS = 300;
const QUICK_ROUNDS = 40;
const SMALL_WINDOW = 32_000;
/** Big enough for the whole session: it never reaches the compaction threshold. */
const BIG_WINDOW = 1_000_000;
/** Characters each round's command prints: about 550 tokens of context a round. */
const FULL_PRINT_CHARS = 2_000;
/** The quick run prints more per round so that its 40 rounds still compact. */
const QUICK_PRINT_CHARS = 4_000;
/** The compacted session must send at most half the tokens of the uncompacted one. */
const TOKEN_RATIO_TARGET = 0.5;

export const compaction: Benchmark = {
  name: "compaction",
  summary:
    "input tokens sent over a long scripted session in a 32k window with compaction vs a window big enough for it; compaction wall-time overhead",
  async run({ quick }: BenchOptions): Promise<BenchRow[]> {
    const rounds = quick ? QUICK_ROUNDS : FULL_ROUNDS;
    const printChars = quick ? QUICK_PRINT_CHARS : FULL_PRINT_CHARS;
    const plan = (contextWindow: number): SessionPlan => ({
      rounds,
      printChars,
      contextWindow,
      maxContextLength: contextWindow,
    });
    const compacted = await runScriptedSession(plan(SMALL_WINDOW), "compaction-small");
    const whole = await runScriptedSession(plan(BIG_WINDOW), "compaction-big");
    if (compacted.compactions === 0)
      throw new Error(`the ${SMALL_WINDOW}-token session never compacted: the benchmark measures nothing`);
    if (whole.compactions > 0)
      throw new Error(
        `the ${BIG_WINDOW}-token session compacted ${whole.compactions} times: it is no baseline`,
      );
    const ratio = compacted.inputTokens / whole.inputTokens;
    const row = (metric: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow => ({
      benchmark: this.name,
      metric,
      value,
      unit,
      ...extra,
    });
    const small = `${SMALL_WINDOW / 1000}k window`;
    const big = `${BIG_WINDOW / 1_000_000}M window`;
    return [
      row(`input tokens sent, ${rounds} rounds, ${small} with compaction`, compacted.inputTokens, "tokens"),
      row(`input tokens sent, ${rounds} rounds, ${big} (no compaction)`, whole.inputTokens, "tokens"),
      row("input tokens, compacted / uncompacted", ratio, "ratio", {
        target: `<= ${TOKEN_RATIO_TARGET}`,
        ok: ratio <= TOKEN_RATIO_TARGET,
      }),
      row(`compactions (${small})`, compacted.compactions, "count"),
      row(
        "compaction requests' share of the tokens sent",
        (100 * compacted.compactionInputTokens) / compacted.inputTokens,
        "%",
      ),
      row(`largest request, ${small}`, compacted.largestRequestInput, "tokens"),
      row(`largest request, ${big}`, whole.largestRequestInput, "tokens"),
      row(`session wall, ${small} with compaction`, compacted.wallMs, "ms"),
      row(`session wall, ${big}`, whole.wallMs, "ms"),
      row("compaction wall / session wall", (100 * compacted.compactionWallMs) / compacted.wallMs, "%"),
      row(
        "wall per compaction (summary request to new context)",
        compacted.compactionWallMs / compacted.compactions,
        "ms",
      ),
    ];
  },
};
