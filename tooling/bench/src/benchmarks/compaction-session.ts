import { allowAll, createAgent } from "@penguin/core";
import { type ScriptTurnInput, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { DEFAULT_COMPACTION_PROMPT } from "@penguin/state";
import { FAKE_MODEL, useFakeModel } from "../fake-model.js";
import { makeBenchDirs, withHome } from "../workdir.js";

// One scripted long session for the compaction benchmark: each round runs a real command that
// prints `printChars` characters, so the context (and the input tokens fake-llm reports, from the
// request body's size) grows round after round like a real one. Requests that carry the
// compaction prompt get a summary instead of the script's next turn.

/** The summary the fake model writes: about 400 tokens, the size of a real one for such a task. */
const SUMMARY_TEXT = `[summary]${"The user asked for a long series of print rounds; each printed a line of x characters and exited 0. ".repeat(16)}[/summary]`;

/** The compaction prompt's opening words, which mark a compaction request (or its retry). */
const PROMPT_MARK = DEFAULT_COMPACTION_PROMPT.slice(0, 60);

export interface SessionPlan {
  rounds: number;
  printChars: number;
  contextWindow: number;
  /** `compaction.max_context_length`: the default leaves the big window's session uncompacted. */
  maxContextLength?: number;
}

export interface SessionFigures {
  /** Σ(request input tokens) over every request, compaction requests included. */
  inputTokens: number;
  /** The same, of the compaction requests alone. */
  compactionInputTokens: number;
  largestRequestInput: number;
  requests: number;
  compactions: number;
  wallMs: number;
  /** Wall time from each `compaction_begin` to its `compaction_end`, summed. */
  compactionWallMs: number;
}

function isCompactionRequest(body: Record<string, unknown>): boolean {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  return messages.slice(-2).some((message) => JSON.stringify(message.content ?? "").includes(PROMPT_MARK));
}

function script(plan: SessionPlan): ScriptTurnInput[] {
  const turns: ScriptTurnInput[] = [];
  for (let i = 0; i < plan.rounds - 1; i++) {
    turns.push({
      text: `Round ${i + 1}.`,
      tool_calls: [
        {
          name: "exec_command",
          arguments: { description: "print", cmd: `head -c ${plan.printChars} /dev/zero | tr '\\0' x; echo` },
        },
      ],
    });
  }
  turns.push({ text: "All rounds done." });
  return turns;
}

/** Runs the session to its end and measures it; throws when it did not complete every round. */
export async function runScriptedSession(plan: SessionPlan, name: string): Promise<SessionFigures> {
  const dirs = makeBenchDirs(name);
  const server = await startFakeLlm({
    script: script(plan),
    pick: (body) => (isCompactionRequest(body) ? { text: SUMMARY_TEXT } : undefined),
  });
  try {
    // Commands inherit this process's environment: an empty HOME.
    return await withHome(dirs.home, async () => {
      await useFakeModel(dirs.dataRoot, server.url, plan.contextWindow);
      const agent = await createAgent({
        dataRoot: dirs.dataRoot,
        logger: { warn: () => {} },
        ...(plan.maxContextLength !== undefined
          ? { config: { compaction: { max_context_length: plan.maxContextLength } } }
          : {}),
      });
      const session = await agent.createSession({ workspaceDir: dirs.workspace, model: FAKE_MODEL });
      try {
        return await measure(session.run("Run the print rounds.", { approve: allowAll }), plan);
      } finally {
        await session.dispose();
      }
    });
  } finally {
    await server.close();
    dirs.cleanup();
  }
}

async function measure(messages: AsyncIterable<OmniMessage>, plan: SessionPlan): Promise<SessionFigures> {
  const figures: SessionFigures = {
    inputTokens: 0,
    compactionInputTokens: 0,
    largestRequestInput: 0,
    requests: 0,
    compactions: 0,
    wallMs: 0,
    compactionWallMs: 0,
  };
  let compactionStart: number | undefined;
  let taskEnd: { status?: string; message?: string } | undefined;
  let outputs = 0;
  const start = performance.now();
  for await (const message of messages) {
    const payload = message.payload as Record<string, unknown> & { type?: string };
    if (payload.type === "token_usage") {
      const request = payload.request as { total: number; output: number };
      const input = request.total - request.output;
      figures.requests += 1;
      figures.inputTokens += input;
      figures.largestRequestInput = Math.max(figures.largestRequestInput, input);
      if (compactionStart !== undefined) figures.compactionInputTokens += input;
    } else if (payload.type === "compaction_begin") {
      compactionStart = performance.now();
    } else if (payload.type === "compaction_end") {
      if (payload.status !== "completed")
        throw new Error(`a compaction ended ${String(payload.status)}: ${String(payload.error_message)}`);
      figures.compactions += 1;
      figures.compactionWallMs += performance.now() - (compactionStart ?? performance.now());
      compactionStart = undefined;
    } else if (payload.type === "tool_call_output") {
      outputs += 1;
    } else if (payload.type === "task_end") {
      taskEnd = payload as { status?: string; message?: string };
    }
  }
  figures.wallMs = performance.now() - start;
  if (taskEnd?.status !== "completed" || outputs !== plan.rounds - 1) {
    throw new Error(
      `the session did not run its ${plan.rounds} rounds: task ${taskEnd?.status ?? "never ended"}` +
        `${taskEnd?.message ? ` (${taskEnd.message})` : ""}, ${outputs} tool outputs`,
    );
  }
  return figures;
}
