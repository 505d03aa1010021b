import type { AgentContext, PromptResponse, StopReason } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { type Approver, type AskFn, policyForMode, type RunInput, type Session } from "@penguin/core";
import type { OmniMessage } from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";
import type { CliLog } from "../logging.js";
import type { EditorFiles } from "./editor-files.js";
import { editorAsk } from "./permission.js";
import { askToApprovePlan } from "./plan.js";
import { UpdateTranslator } from "./updates.js";

/**
 * Why a task ended, as ACP's stop reason: a limit that cut it short first (the engine ends such a
 * task as aborted, but nobody cancelled it), then the task's status. The editor's own cancel is
 * answered before this is asked.
 */
function stopReasonOf(status: string, limit: string | undefined): StopReason {
  if (limit === "max_turns") return "max_turn_requests";
  if (limit !== undefined) return "end_turn";
  if (status === "aborted") return "cancelled";
  return "end_turn";
}

/** How one task ended, as the prompt's answer needs it. */
interface TaskOutcome {
  status: string;
  failure?: string;
  limit?: string;
  /** What the limit's event said (e.g. "reached max turns (1); stopping"). */
  limitMessage?: string;
  /** The plan a plan-mode task proposed. */
  proposed?: string;
}

/**
 * One Penguin session served to an editor: at most one task at a time, its messages sent as
 * `session/update`s, its approvals asked with `session/request_permission`.
 */
export class AcpSession {
  private running: AbortController | undefined;
  /** Tools the user answered "always reject" for. */
  private readonly rejected = new Set<string>();
  /** Plans asked about so far: the number of the next plan question's call id. */
  private plansAsked = 0;

  constructor(
    readonly session: Session,
    private readonly client: AgentContext,
    private mode: ApprovalMode,
    private readonly log: CliLog,
    /** The session's files through the editor, when it offers them. */
    private readonly files?: EditorFiles,
  ) {}

  get id(): string {
    return this.session.id;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get approvalMode(): ApprovalMode {
    return this.mode;
  }

  /** `session/set_mode`: takes effect at once, for the running task's next call too. */
  setMode(mode: ApprovalMode): void {
    this.mode = mode;
  }

  /** Decides each call by the mode the session is in when the call comes. */
  private approver(ask: AskFn): Approver {
    const current = () => this.mode;
    return {
      get mode() {
        return current();
      },
      decide: (call, context) => policyForMode(current(), ask).decide(call, context),
    };
  }

  /**
   * Runs one prompt as a task to its end; refused while another task of the session runs. In
   * plan mode, a task that proposed a plan then asks whether to carry it out: approved, the mode
   * switches and the plan runs as a second task of the same prompt turn.
   */
  async prompt(input: RunInput): Promise<PromptResponse> {
    if (this.running) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        "a prompt is already running in this session: wait for its answer or send session/cancel",
      );
    }
    const controller = new AbortController();
    this.running = controller;
    const ask = editorAsk({
      client: this.client,
      sessionId: this.id,
      cwd: () => this.session.currentDirectory,
      rejected: this.rejected,
    });
    let outcome: TaskOutcome;
    try {
      const approve = this.approver(ask);
      outcome = await this.runTask(this.session.run(input, { approve, signal: controller.signal }));
      if (outcome.proposed !== undefined && !controller.signal.aborted) {
        const mode = await askToApprovePlan(
          this.client,
          this.id,
          `plan_${++this.plansAsked}`,
          outcome.proposed,
          controller.signal,
        );
        if (mode !== undefined && !controller.signal.aborted) {
          this.mode = mode;
          await this.client.notify("session/update", {
            sessionId: this.id,
            update: { sessionUpdate: "current_mode_update", currentModeId: mode },
          });
          outcome = await this.runTask(this.session.approvePlan({ approve, signal: controller.signal }));
        }
      }
    } finally {
      this.running = undefined;
    }
    if (controller.signal.aborted) return { stopReason: "cancelled" };
    const { status, failure, limit, limitMessage } = outcome;
    if ((status !== "completed" && status !== "aborted") || limit !== undefined) {
      // The editor shows the reason where the answer would have been.
      const text =
        limit !== undefined
          ? `Penguin: the task stopped at a limit: ${limitMessage ?? limit}`
          : `Penguin: the task ${status}${failure ? `: ${failure}` : ""}`;
      await this.client.notify("session/update", {
        sessionId: this.id,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      });
    }
    return { stopReason: stopReasonOf(status, limit) };
  }

  /** Sends one task's messages as session updates; says how it ended (and the plan it proposed). */
  private async runTask(messages: AsyncIterable<OmniMessage>): Promise<TaskOutcome> {
    const files = this.files;
    const editorText = files && ((path: string) => files.knownText(path));
    const translator = new UpdateTranslator(() => this.session.currentDirectory, false, editorText);
    const outcome: TaskOutcome = { status: "completed" };
    for await (const message of messages) {
      this.log.message(message);
      for (const update of translator.translate(message)) {
        await this.client.notify("session/update", { sessionId: this.id, update });
      }
      if (message.type !== "event_msg" || message.origin?.length) continue;
      const p = message.payload;
      if (p.type === "task_end") {
        outcome.status = p.status;
        outcome.failure = p.message;
      } else if (p.type === "limit_reached") {
        outcome.limit = p.limit;
        outcome.limitMessage = p.message;
      } else if (p.type === "plan_proposed") outcome.proposed = p.text;
    }
    return outcome;
  }

  /** `session/cancel`: the task stops (its running commands are ended); nothing when idle. */
  cancel(): void {
    this.running?.abort(new Error("the editor cancelled the prompt"));
  }

  async dispose(): Promise<void> {
    this.cancel();
    await this.session.dispose();
  }
}
