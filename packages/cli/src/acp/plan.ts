import type {
  AgentContext,
  PermissionOption,
  SessionUpdate,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { PlanUpdatedPayload } from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";

// Plan mode over ACP. The model's checklist (`plan_updated`) is a `plan` session update. A
// plan-mode prompt that ends with a plan asks the editor, as a `switch_mode` call, whether to
// carry it out: in allow-all, asking about each call, or not yet (keep planning). Approval
// switches the session's mode and runs the plan in the same prompt turn.

/** The model's checklist as ACP plan entries (ACP's `completed` is Penguin's `done`). */
export function planUpdate(p: PlanUpdatedPayload): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: p.steps.map((s) => ({
      content: s.step,
      priority: "medium",
      status: s.status === "done" ? "completed" : s.status,
    })),
  };
}

const RUN_ALLOW_ALL = "plan_allow_all";
const RUN_ASK_EACH = "plan_always_ask";
const KEEP_PLANNING = "plan_keep_planning";

const OPTIONS: PermissionOption[] = [
  { optionId: RUN_ALLOW_ALL, name: "Run the plan, allowing every call", kind: "allow_always" },
  { optionId: RUN_ASK_EACH, name: "Run the plan, asking about each call", kind: "allow_once" },
  { optionId: KEEP_PLANNING, name: "Keep planning", kind: "reject_once" },
];

/**
 * Asks the editor's user whether to carry out the proposed plan: the mode to run it in, or
 * undefined to keep planning (a cancelled prompt keeps planning too).
 */
export async function askToApprovePlan(
  client: AgentContext,
  sessionId: string,
  toolCallId: string,
  plan: string,
  signal: AbortSignal,
): Promise<ApprovalMode | undefined> {
  const content: ToolCallContent[] = [{ type: "content", content: { type: "text", text: plan } }];
  await client.notify("session/update", {
    sessionId,
    update: {
      sessionUpdate: "tool_call",
      toolCallId,
      title: "Approve the plan",
      kind: "switch_mode",
      status: "pending",
      content,
    },
  });
  // A request the editor fails or the prompt's cancel ends keeps planning.
  const response = await client
    .request(
      "session/request_permission",
      {
        sessionId,
        toolCall: { toolCallId, title: "Approve the plan", kind: "switch_mode", content },
        options: OPTIONS,
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    )
    .catch(() => undefined);
  const outcome = response?.outcome ?? { outcome: "cancelled" as const };
  const mode =
    outcome.outcome !== "selected"
      ? undefined
      : outcome.optionId === RUN_ALLOW_ALL
        ? "allow-all"
        : outcome.optionId === RUN_ASK_EACH
          ? "always-ask"
          : undefined;
  await client.notify("session/update", {
    sessionId,
    update: { sessionUpdate: "tool_call_update", toolCallId, status: mode ? "completed" : "failed" },
  });
  return mode;
}
