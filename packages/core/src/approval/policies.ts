import type { DecisionSource, OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { errorMessage } from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";
import type { ApprovalPolicy, ApprovalRequest, PolicyDecision } from "./approver.js";
import type { SessionRule } from "./session-rules.js";

/**
 * A human's answer. Besides allow/deny, an approval may grant a rule for the rest of the
 * session: the tool (`{ tool: "exec_command" }`) or a command prefix (`{ commandPrefix: "git status" }`).
 */
export type HumanAnswer =
  | "allow"
  | "deny"
  | { decision: "allow" | "deny"; remember?: SessionRule; reason?: string }
  | NoTerminalAnswer;

/**
 * The answer of a front end that has nobody to ask (stdin is not a terminal): a deny that is
 * recorded as source `no_terminal`, not as a human's, and that the model reads as such.
 */
export interface NoTerminalAnswer {
  decision: "deny";
  /** Why nobody can be asked, e.g. "stdin is not a terminal". */
  noTerminal: string;
}

/** Asks a human about one call (a terminal prompt, a web button…). A throw counts as deny. */
export type AskFn = (call: OmniMessage<ToolCallPayload>, request: ApprovalRequest) => Promise<HumanAnswer>;

/** A mode's policy: the mode it implements and how it decides. */
function policy(
  mode: ApprovalMode,
  decide: (request: ApprovalRequest) => Promise<PolicyDecision>,
): ApprovalPolicy {
  return { mode, decide: (call, context) => decide({ ...context, call }) };
}

const modeSource = (mode: ApprovalMode): DecisionSource => ({ kind: "mode", name: mode });

/** "allow-all": every call runs (the command guardrail still applies first). */
export const allowAll: ApprovalPolicy = policy("allow-all", async () => ({
  decision: "allow",
  source: modeSource("allow-all"),
}));

/** "deny-all": no call runs. */
export const denyAll: ApprovalPolicy = policy("deny-all", async () => ({
  decision: "deny",
  source: modeSource("deny-all"),
  reason: "the session's approval mode is deny-all",
}));

/** "read-only auto-approves permission: "r" tools and defers the rest to a human". */
export function readOnly(ask: AskFn): ApprovalPolicy {
  return policy("read-only", async (request) => {
    if (request.permission === "r") return { decision: "allow", source: modeSource("read-only") };
    return askHuman(ask, request);
  });
}

/** "always-ask": every call goes to a human (unless a rule they granted covers it). */
export function alwaysAsk(ask: AskFn): ApprovalPolicy {
  return policy("always-ask", (request) => askHuman(ask, request));
}

/** What the model reads when plan mode refuses a call. */
export const PLAN_MODE_DENIAL = "plan mode: only reading tools run; write the plan as your answer";

/**
 * "plan": reading tools (permission "r") run; every other call is refused without asking anyone,
 * with a reason that tells the model to answer with its plan instead.
 */
export const planMode: ApprovalPolicy = policy("plan", async (request) => {
  if (request.permission === "r") return { decision: "allow", source: modeSource("plan") };
  return { decision: "deny", source: modeSource("plan"), reason: PLAN_MODE_DENIAL };
});

/** The policy of a mode name, as written in configs and CLI flags. */
export function policyForMode(mode: ApprovalMode, ask: AskFn): ApprovalPolicy {
  switch (mode) {
    case "allow-all":
      return allowAll;
    case "deny-all":
      return denyAll;
    case "read-only":
      return readOnly(ask);
    case "always-ask":
      return alwaysAsk(ask);
    case "plan":
      return planMode;
  }
}

async function askHuman(ask: AskFn, request: ApprovalRequest): Promise<PolicyDecision> {
  const granted = request.rules.match(request.call);
  if (granted) return { decision: "allow", source: { kind: "session_rule", name: granted } };
  let answer: HumanAnswer;
  try {
    answer = await ask(request.call, request);
  } catch (error) {
    return {
      decision: "deny",
      source: { kind: "human" },
      reason: `asking for approval failed: ${errorMessage(error)}`,
    };
  }
  if (answer === "allow" || answer === "deny") return { decision: answer, source: { kind: "human" } };
  if ("noTerminal" in answer) {
    return { decision: "deny", source: { kind: "no_terminal" }, reason: answer.noTerminal };
  }
  const decision: PolicyDecision = {
    decision: answer.decision === "allow" ? "allow" : "deny",
    source: { kind: "human" },
  };
  if (answer.reason) decision.reason = answer.reason;
  if (decision.decision === "allow" && answer.remember) decision.remember = answer.remember;
  return decision;
}
