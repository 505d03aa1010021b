import { assistantText, eventMsg, sessionMeta, taskEnd, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  parseInputSubagentArgs,
  parseRunSubagentArgs,
  restoredChildState,
} from "../../src/tools/subagent/index.js";

const TIMEOUT = 600_000;

describe("subagent tool arguments", () => {
  it("defaults the windows: 300000 for run_subagent and follow-ups, 10000 for polls, capped below the timeout", () => {
    expect(parseRunSubagentArgs({ prompt: "p" }, TIMEOUT)).toEqual({
      ok: true,
      value: { prompt: "p", windowMs: DEFAULT_RUN_YIELD_MS },
    });
    expect(parseInputSubagentArgs({ subagent_id: "sub_1" }, TIMEOUT)).toEqual({
      ok: true,
      value: { subagentId: "sub_1", windowMs: DEFAULT_POLL_YIELD_MS },
    });
    expect(parseInputSubagentArgs({ subagent_id: " sub_1 ", prompt: "more" }, TIMEOUT)).toEqual({
      ok: true,
      value: { subagentId: "sub_1", prompt: "more", windowMs: DEFAULT_FOLLOW_UP_YIELD_MS },
    });
    // An empty prompt is a poll.
    expect(parseInputSubagentArgs({ subagent_id: "sub_1", prompt: "" }, TIMEOUT)).toMatchObject({
      value: { windowMs: DEFAULT_POLL_YIELD_MS },
    });
    // A 10 s tool timeout leaves a 9 s window: the call returns the id instead of timing out.
    expect(parseRunSubagentArgs({ prompt: "p" }, 10_000)).toMatchObject({ value: { windowMs: 9_000 } });
    expect(parseRunSubagentArgs({ prompt: "p", yield_time_ms: -5 }, TIMEOUT)).toMatchObject({
      value: { windowMs: 0 },
    });
  });

  it("pairs model_id with provider and trims the choice", () => {
    expect(
      parseRunSubagentArgs({ prompt: "p", model_id: " m ", provider: " prov ", agent_id: "helper" }, TIMEOUT),
    ).toMatchObject({ value: { model: { provider: "prov", modelId: "m" }, agentId: "helper" } });
    expect(parseRunSubagentArgs({ prompt: "p", model_id: "m" }, TIMEOUT)).toEqual({
      ok: false,
      error:
        'argument "model_id" ("m") needs "provider", the provider group it belongs to; omit both to use this session\'s model',
    });
    expect(parseRunSubagentArgs({ prompt: "p", provider: "prov", model_id: "  " }, TIMEOUT)).toMatchObject({
      ok: false,
      error: expect.stringContaining('argument "provider" ("prov") is given without "model_id"'),
    });
  });

  it("turns malformed values into messages the model can act on", () => {
    expect(parseRunSubagentArgs({}, TIMEOUT)).toEqual({
      ok: false,
      error: 'missing argument "prompt": a non-empty string is required',
    });
    expect(parseRunSubagentArgs({ prompt: "   " }, TIMEOUT)).toMatchObject({ ok: false });
    expect(parseRunSubagentArgs({ prompt: "p", agent_id: 7 }, TIMEOUT)).toEqual({
      ok: false,
      error: 'argument "agent_id" must be a string, got number',
    });
    expect(parseRunSubagentArgs({ prompt: "p", yield_time_ms: "soon" }, TIMEOUT)).toEqual({
      ok: false,
      error: 'argument "yield_time_ms" must be a number of milliseconds, got "soon"',
    });
    expect(parseInputSubagentArgs({ subagent_id: 1 }, TIMEOUT)).toMatchObject({
      ok: false,
      error: expect.stringContaining('"subagent_id"'),
    });
    expect(parseInputSubagentArgs({ subagent_id: "sub_1", prompt: ["x"] }, TIMEOUT)).toEqual({
      ok: false,
      error: 'argument "prompt" must be a string, got object',
    });
  });
});

describe("a child's state read from its trace after the parent resumed", () => {
  const meta = sessionMeta({
    session_id: "s",
    provider: "p",
    model_id: "m",
    system_prompt: "",
    workspace: "/w",
  });
  const prompt = (text: string) => userText(text, { sender: "parent_agent" });

  it("is idle with the last task's outcome and answer when every task ended", () => {
    expect(
      restoredChildState([
        meta,
        prompt("one"),
        eventMsg({ type: "request_begin", attempt: 1 }),
        assistantText("first"),
        taskEnd("completed"),
        prompt("two"),
        assistantText("thinking aloud"),
        assistantText("second"),
        taskEnd("failed", "the model request failed"),
      ]),
    ).toEqual({
      status: "idle",
      lastTask: { status: "failed", message: "the model request failed" },
      answer: "second",
    });
  });

  it("is interrupted when the last task has no task_end (it was running when the process ended)", () => {
    expect(
      restoredChildState([meta, prompt("one"), assistantText("a"), taskEnd("completed"), prompt("two")]),
    ).toEqual({
      status: "interrupted",
    });
  });

  it("is idle without a task when the trace ends at its header", () => {
    expect(restoredChildState([meta])).toEqual({ status: "idle" });
  });
});
