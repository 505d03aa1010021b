import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import type { Approver } from "../../approval/approver.js";

/** A child's tool call whose approval is being decided (a human may be asked). */
export interface PendingApproval {
  toolCallId: string;
  name: string;
}

/**
 * The child's view of the inherited approver. Every decision still goes to the parent's
 * approver ("the child Session inherits the parent Agent's approval callback, so the
 * approval mode follows the parent"); the wrapper only notes which calls are waiting, so a poll
 * can say what the child waits on instead of looking hung.
 */
export class ApprovalWatch {
  private readonly pending = new Map<string, PendingApproval>();

  constructor(private readonly onChange: () => void) {}

  /** Calls waiting for a decision, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /** The approver to run the child with: the parent's own, watched. Undefined stays undefined (deny). */
  wrap(approver: Approver | undefined): Approver | undefined {
    if (approver === undefined) return undefined;
    // The parent's approver keeps its mode and still decides with the child's context (permission, rules).
    return {
      mode: approver.mode,
      decide: (call, context) => this.track(call, async () => approver.decide(call, context)),
    };
  }

  private async track<T>(call: OmniMessage<ToolCallPayload>, decide: () => Promise<T>): Promise<T> {
    const id = call.payload.tool_call_id;
    this.pending.set(id, { toolCallId: id, name: call.payload.name });
    this.onChange();
    try {
      return await decide();
    } finally {
      this.pending.delete(id);
      this.onChange();
    }
  }
}
