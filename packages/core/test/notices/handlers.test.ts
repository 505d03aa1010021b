import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { NoticesSettingsSchema } from "@penguin/state/schemas";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { HandlerCatalog, NoticeBoard } from "../../src/notices/index.js";
import { collect, kind, MODEL, setup } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { ownHandlers, workspaceHandlers, writeHandler } from "./support.js";

// Which handler takes a notice: handlers change_directory finds, the most specific match, and the
// seam through which a handler's named agent will get its notices (launch_agent).

const start = cleanedUpAfterEach(setup);

const changeDirectory = (id: string, path: string) => ({ id, name: "change_directory", arguments: { path } });

const outputs = (messages: OmniMessage[]) =>
  messages.filter((m) => kind(m) === "tool_call_output").map((m) => (m.payload as { output: string }).output);

describe("handlers of the directories change_directory enters", () => {
  it("are added with the opt-in (the output lists them), and named as ignored without it", async () => {
    const script = [{ tool_calls: [changeDirectory("call_cd", "service")] }, { text: "moved" }];
    const env = await start(script, {
      config: { tools: { preset: "extended" }, hooks: { allow_workspace_hooks: true } },
    });
    const service = join(env.workspaceDir, "service");
    mkdirSync(service);
    writeHandler(workspaceHandlers(service), "alerts", { type: "alert.*", delivery: "wake" });
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(session.notify({ type: "alert.fired", summary: "disk full" })).toMatchObject({
      reason: "no_handler",
    });
    const messages = await collect(session.run("Go to the service.", { approve: allowAll }));
    expect(outputs(messages)[0]).toContain("# Event handlers here\n- alerts: notices of type alert.* (wake)");
    expect(session.notify({ type: "alert.fired", summary: "disk full" })).toMatchObject({
      status: "accepted",
      handler: "alerts",
    });
    await session.dispose();

    const closed = await setup(script, { config: { tools: { preset: "extended" } } });
    try {
      const dir = join(closed.workspaceDir, "service");
      mkdirSync(dir);
      writeHandler(workspaceHandlers(dir), "alerts", { type: "alert.*" });
      const other = await closed.agent.createSession({ workspaceDir: closed.workspaceDir, model: MODEL });
      const moved = await collect(other.run("Go to the service.", { approve: allowAll }));
      expect(outputs(moved)[0]).toContain("is ignored: workspace event handlers load only with");
      expect(other.notify({ type: "alert.fired", summary: "x" })).toMatchObject({ reason: "no_handler" });
      await other.dispose();
    } finally {
      await closed.cleanup();
    }
  });
});

describe("the handler a notice goes to", () => {
  it("is the exact type first, then the longest prefix", async () => {
    const env = await start([]);
    writeHandler(ownHandlers(env.dataRoot), "a-broad", { type: "deploy.*" });
    writeHandler(ownHandlers(env.dataRoot), "b-narrow", { type: "deploy.eu.*" });
    writeHandler(ownHandlers(env.dataRoot), "c-exact", { type: "deploy.eu.done" });
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const handlerOf = (type: string) => {
      const outcome = session.notify({ type, summary: "x" });
      return outcome.status === "accepted" ? outcome.handler : outcome.reason;
    };
    expect(handlerOf("deploy.eu.done")).toBe("c-exact");
    expect(handlerOf("deploy.eu.failed")).toBe("b-narrow");
    expect(handlerOf("deploy.us.done")).toBe("a-broad");
    expect(handlerOf("deploy")).toBe("no_handler");
    await session.dispose();
  });
});

describe("a handler that names an agent", () => {
  const handler = {
    name: "reviews",
    type: "review.requested",
    agent: "reviewer",
    delivery: "queue" as const,
    guidance: "Review the change.",
    file: "/handlers/reviews.md",
    source: "agent" as const,
  };
  const settings = NoticesSettingsSchema.parse({});

  it("that names an agent reaches the root agent, which is told to launch that agent (its own approvals apply)", () => {
    const handlers = new HandlerCatalog(false);
    handlers.add([handler]);
    const board = new NoticeBoard({ handlers, settings, record: () => {} });
    expect(board.notify({ type: "review.requested", summary: "PR 12" })).toMatchObject({
      status: "accepted",
    });
    const [taken] = board.take();
    const text = (taken?.message.payload as { text?: string } | undefined)?.text;
    expect(text).toContain('the named agent "reviewer" should handle it');
    expect(text).toContain('launch_agent with agent "reviewer"');
    expect(text).toContain("Review the change.");
  });
});
