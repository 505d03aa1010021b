import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { type ApprovalPolicy, type ApprovalRequest, isApprovalPolicy } from "../../approval/policies.js";
import type { ApproveFn } from "../../environment/types.js";

/** A child's tool call whose approval is being decided (a human may be asked). */
export interface PendingApproval {
  toolCallId: string;
  name: string;
}

/**
 * The child's view of the inherited approval callback. Every decision still goes to the parent's
 * callback or policy ("the child Session inherits the parent Agent's approval callback, so the
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

  /** The callback to run the child with: the parent's own, watched. Undefined stays undefined (deny). */
  wrap(approve: ApproveFn | ApprovalPolicy | undefined): ApproveFn | ApprovalPolicy | undefined {
    if (approve === undefined) return undefined;
    const asFunction: ApproveFn = (call) => this.track(call, () => approve(call));
    if (!isApprovalPolicy(approve)) return asFunction;
    // A policy keeps its shape: the approval gate calls `decide` (with the tool's permission).
    const decide = (request: ApprovalRequest) => this.track(request.call, () => approve.decide(request));
    return Object.assign(asFunction, { mode: approve.mode, decide });
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
