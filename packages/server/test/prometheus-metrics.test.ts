import { describe, expect, it } from "vitest";
import { eventually, execTurn, sessionServer, waitForEnvelope } from "./session-fixture.js";

// Prometheus metrics on a listener of their own, on the loopback address: what the sessions did,
// labelled only with tool names the session offered, provider, model and status.

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

describe("Prometheus metrics", () => {
  it("counts tool calls, model requests, tokens and tasks, with no path, command or prompt in them", async () => {
    const s = await sessionServer(
      [
        execTurn("echo secret-command-text"),
        { tool_calls: [{ id: "bogus", name: "invented_tool_9f3", arguments: {} }] },
        { text: "Done." },
      ],
      { metricsPort: 0 },
    );
    const url = s.server.metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    const started = await s.call(`/api/sessions/${id}/tasks`, {
      json: { input: "Prompt text never labelled" },
    });
    expect(started.status).toBe(202);
    await waitForEnvelope(stream, "task_end");

    const text = await eventually(async () => {
      const body = await scrape(url ?? "");
      return body.includes("penguin_tasks_total{") ? body : undefined;
    }, "the task's metrics");
    expect(text).toMatch(/penguin_tool_calls_total\{tool="exec_command",status="completed"\} 1/);
    // A name the model invented is not a label value.
    expect(text).toMatch(/penguin_tool_calls_total\{tool="unknown",status="error"\} 1/);
    expect(text).not.toContain("invented_tool_9f3");
    expect(text).toMatch(
      /penguin_model_requests_total\{provider="fake",model="fake-model",status="completed"\} 3/,
    );
    expect(text).toMatch(/penguin_model_tokens_total\{provider="fake",model="fake-model"\} [1-9]/);
    expect(text).toMatch(/penguin_tool_call_duration_seconds_count\{tool="exec_command"\} 1/);
    expect(text).toMatch(/penguin_tasks_total\{status="completed"\} 1/);
    for (const secret of ["secret-command-text", "Prompt text", s.workspace, id, "admin"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("serves only GET /metrics, and nothing without metricsPort", async () => {
    const s = await sessionServer([{ text: "hi" }], { metricsPort: 0 });
    const base = (s.server.metricsUrl ?? "").replace(/\/metrics$/, "");
    expect((await fetch(`${base}/api/sessions`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(404);
    const plain = await sessionServer([{ text: "hi" }]);
    expect(plain.server.metricsUrl).toBeUndefined();
  });
});
