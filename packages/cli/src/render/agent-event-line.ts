import type { OmniMessage } from "@penguin/protocol";
import { truncateLine } from "./format.js";
import type { Style } from "./style.js";
import { terminalSafe } from "./terminal-text.js";

// The compact lines of agents that work together, in the live output: a launch, a stop, a
// child's end, a message between agents, a question and its answer, a notice. One short line
// each, so a busy tree of agents stays readable beside the tool calls.

/** A task, message, question or notice text is cut to this many characters (its head says what it is). */
export const AGENT_EVENT_TEXT_MAX_CHARS = 80;

/** Text from a model or from outside, on one line, safe for the terminal, cut. */
export function oneLine(text: string, max = AGENT_EVENT_TEXT_MAX_CHARS): string {
  return truncateLine(terminalSafe(text).replace(/\s+/g, " ").trim(), max);
}

type Payload = OmniMessage["payload"];

/**
 * The line of an agent event, or undefined for a payload that is not one. `alreadyShown` says
 * whether a message's `message_sent` was printed (a child's relayed send): its delivery then
 * prints nothing, so one message is one line.
 */
export function agentEventLine(
  p: Payload,
  style: Style,
  alreadyShown: (messageId: string) => boolean,
): string | undefined {
  switch (p.type) {
    case "agent_launched": {
      const agent = p.agent ? ` (${p.agent})` : "";
      return `  ${style.cyan("→")} ${style.bold(p.agent_run_id)} launched${agent}: ${oneLine(p.task)}`;
    }
    case "agent_stopped": {
      const others = p.stopped.filter((id) => id !== p.agent_run_id);
      const also = others.length > 0 ? ` and ${others.join(", ")}` : "";
      const processes = p.processes_ended === 1 ? "1 process" : `${p.processes_ended} processes`;
      return style.yellow(`  ■ ${p.agent_run_id} stopped${also}; ${processes} ended`);
    }
    case "agent_finished": {
      const colour =
        p.status === "completed" ? style.green : p.status === "interrupted" ? style.yellow : style.red;
      const message = p.message ? `: ${oneLine(p.message)}` : "";
      return `  ${colour("←")} ${style.bold(p.agent_run_id)} ${colour(p.status)}${style.dim(message)}`;
    }
    case "message_sent":
      return `  ${style.cyan("✉")} ${p.from} → ${p.to}: ${style.dim(oneLine(p.text))}`;
    case "message_delivered":
      if (alreadyShown(p.message_id)) return undefined;
      return `  ${style.cyan("✉")} ${p.from} → ${p.to}: ${style.dim(oneLine(p.text))}`;
    case "question_asked":
      return `  ${style.yellow("?")} ${p.from} asks ${p.to} ${style.dim(`[${p.question_id}]`)}: ${oneLine(p.text)}`;
    case "question_answered":
      return `  ${style.green("!")} ${p.from} answered ${style.dim(`[${p.question_id}]`)}: ${style.dim(oneLine(p.text))}`;
    case "notice_delivered": {
      const dropped = p.dropped_before ? `, ${p.dropped_before} older dropped` : "";
      const how = style.dim(`(${p.delivery}, handler ${p.handler}${dropped})`);
      return `  ${style.cyan("◆")} notice ${p.notice_type} ${how}: ${oneLine(p.summary)}`;
    }
    default:
      return undefined;
  }
}
