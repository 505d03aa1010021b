import { describe, expect, test } from "vitest";
import {
  addTokenCounts,
  assistantText,
  emptyTokenCounts,
  goalFinished,
  isCompleteModelMessage,
  isEventMessage,
  isPartialMessage,
  isPayload,
  isSessionMeta,
  PROTOCOL_VERSION,
  parseEnvelope,
  requestBegin,
  sessionMeta,
  toolCall,
  toolCallOutput,
  withOrigin,
} from "../src/index.js";
import { everyKind, viaJson } from "./fixtures/every-kind.js";

describe("builders", () => {
  test.each(Object.entries(everyKind()))("%s parses back unchanged through JSON", (_kind, message) => {
    const parsed = parseEnvelope(viaJson(message));
    expect(parsed).toEqual({ ok: true, value: message });
  });

  test("stamp an ISO 8601 UTC timestamp", () => {
    for (const message of Object.values(everyKind())) {
      expect(message.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  test("sessionMeta records the current protocol version unless told another", () => {
    const base = { session_id: "s", provider: "p", model_id: "m", system_prompt: "", workspace: "/w" };
    expect(sessionMeta(base).payload.protocol_version).toBe(PROTOCOL_VERSION);
    expect(sessionMeta({ ...base, protocol_version: 1 }).payload.protocol_version).toBe(1);
  });

  test("toolCall keeps string arguments verbatim, malformed JSON included, and serialises objects", () => {
    expect(toolCall("f", '{"a": 1,', "c").payload.arguments).toBe('{"a": 1,');
    expect(toolCall("f", { a: [1, "x"] }, "c").payload.arguments).toBe('{"a":[1,"x"]}');
  });

  test("toolCallOutput defaults to completed and leaves out an empty image list", () => {
    const m = toolCallOutput("c", "out", undefined, []);
    expect(m.payload).toEqual({
      type: "tool_call_output",
      role: "user",
      output: "out",
      tool_call_id: "c",
      stop_reason: "completed",
    });
  });

  test("requestBegin leaves out a missing attempt", () => {
    expect(requestBegin().payload).toEqual({ type: "request_begin" });
    expect(requestBegin(3).payload).toEqual({ type: "request_begin", attempt: 3 });
  });

  test("goalFinished leaves out a missing reason", () => {
    expect(goalFinished({ outcome: "complete", rounds: 3, tokens_used: 900 }).payload).toEqual({
      type: "goal_finished",
      outcome: "complete",
      rounds: 3,
      tokens_used: 900,
    });
  });
});

describe("withOrigin", () => {
  test("prepends each enclosing session, so origin reads outer to inner", () => {
    // The child's engine tags its grandchild's message first; the parent's engine tags it next.
    const fromGrandchild = withOrigin(assistantText("x"), "grandchild");
    const seenByParent = withOrigin(fromGrandchild, "child");
    expect(seenByParent.origin).toEqual(["child", "grandchild"]);
  });

  test("does not change the message it was given", () => {
    const original = withOrigin(assistantText("x"), "inner");
    withOrigin(original, "outer");
    expect(original.origin).toEqual(["inner"]);
  });
});

describe("guards", () => {
  const all = everyKind();
  const kindsWhere = (guard: (m: (typeof all)[string]) => boolean) =>
    Object.entries(all)
      .filter(([, m]) => guard(m))
      .map(([kind]) => kind)
      .sort();

  test("isCompleteModelMessage: the six complete kinds, from any origin", () => {
    expect(kindsWhere(isCompleteModelMessage)).toEqual(
      [
        "assistant_text",
        "child_text",
        "image_url",
        "inline_data",
        "thinking",
        "tool_call",
        "tool_call_output",
        "user_text",
      ].sort(),
    );
  });

  test("isPartialMessage: the four partial kinds", () => {
    expect(kindsWhere(isPartialMessage)).toEqual(
      ["partial_text", "partial_thinking", "partial_tool_call", "partial_tool_call_output"].sort(),
    );
  });

  test("isEventMessage: every event and nothing else", () => {
    expect(kindsWhere(isEventMessage)).toEqual(
      [
        "abort",
        "approval_decision",
        "compaction_begin",
        "compaction_end",
        "goal_finished",
        "hook_result",
        "limit_reached",
        "mcp_connect_begin",
        "mcp_connect_end",
        "request_begin",
        "request_end",
        "subagent",
        "task_end",
        "token_usage",
        "tool_list_ready",
      ].sort(),
    );
  });

  test("isSessionMeta: only the session meta", () => {
    expect(kindsWhere(isSessionMeta)).toEqual(["session_meta"]);
  });

  test("isPayload narrows to one payload type across model messages and events", () => {
    expect(kindsWhere((m) => isPayload(m, "tool_call"))).toEqual(["tool_call"]);
    expect(kindsWhere((m) => isPayload(m, "token_usage"))).toEqual(["token_usage"]);
    expect(kindsWhere((m) => isPayload(m, "text"))).toEqual(["assistant_text", "child_text", "user_text"]);
    const m = all.tool_call;
    if (isPayload(m, "tool_call")) expect(m.payload.name).toBe("exec_command");
  });
});

describe("token counts", () => {
  test("addTokenCounts adds each field; emptyTokenCounts is its identity", () => {
    const a = { cache_read: 1, cache_write: 2, output: 3, total: 10 };
    const b = { cache_read: 100, cache_write: 0, output: 7, total: 200 };
    expect(addTokenCounts(a, b)).toEqual({ cache_read: 101, cache_write: 2, output: 10, total: 210 });
    expect(addTokenCounts(emptyTokenCounts(), a)).toEqual(a);
  });

  test("emptyTokenCounts returns a fresh object each time", () => {
    const first = emptyTokenCounts();
    first.total = 5;
    expect(emptyTokenCounts().total).toBe(0);
  });
});
