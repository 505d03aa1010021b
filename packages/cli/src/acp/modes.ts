import { RequestError, type SessionMode, type SessionModeState } from "@agentclientprotocol/sdk";
import { APPROVAL_MODES, type ApprovalMode } from "@penguin/state";

/** Penguin's approval modes as ACP session modes (the id is the mode's name, as `--approve` takes it). */
const MODES: Record<ApprovalMode, Omit<SessionMode, "id">> = {
  "always-ask": { name: "Always ask", description: "Every tool call is asked about first." },
  "read-only": {
    name: "Read-only",
    description: "Reading tools run; anything that writes or runs a command is asked about.",
  },
  "allow-all": { name: "Allow all", description: "Every tool call runs without asking." },
  "deny-all": { name: "Deny all", description: "No tool call runs." },
  plan: {
    name: "Plan",
    description: "Reading tools run; nothing is changed. The agent answers with a plan for you to approve.",
  },
};

export function modeState(current: ApprovalMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODES[id] })),
  };
}

/** The approval mode of a `session/set_mode` request; an unknown id is an invalid parameter. */
export function approvalModeOf(modeId: string): ApprovalMode {
  const mode = APPROVAL_MODES.find((name) => name === modeId);
  if (mode === undefined) {
    throw RequestError.invalidParams(
      { modeId },
      `unknown mode "${modeId}": use one of ${APPROVAL_MODES.join(", ")}`,
    );
  }
  return mode;
}
