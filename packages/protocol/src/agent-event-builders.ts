import type {
  AgentFinishedPayload,
  AgentLaunchedPayload,
  AgentStoppedPayload,
  NoticeDeliveredPayload,
  QuestionAnsweredPayload,
  QuestionAskedPayload,
} from "./agent-events.js";
import { eventMsg } from "./builders.js";

// Builders of the agent events (agent-events.ts): the fields without `type`.

/** A payload's named fields without `type` (a loose object's index signature left out too). */
type Fields<P> = { [K in keyof P as string extends K ? never : K extends "type" ? never : K]: P[K] };

export const agentLaunched = (fields: Fields<AgentLaunchedPayload>) =>
  eventMsg({ type: "agent_launched", ...fields });

export const agentStopped = (fields: Fields<AgentStoppedPayload>) =>
  eventMsg({ type: "agent_stopped", ...fields });

export const agentFinished = (fields: Fields<AgentFinishedPayload>) =>
  eventMsg({ type: "agent_finished", ...fields });

export const questionAsked = (fields: Fields<QuestionAskedPayload>) =>
  eventMsg({ type: "question_asked", ...fields });

export const questionAnswered = (fields: Fields<QuestionAnsweredPayload>) =>
  eventMsg({ type: "question_answered", ...fields });

export const noticeDelivered = (fields: Fields<NoticeDeliveredPayload>) =>
  eventMsg({ type: "notice_delivered", ...fields });
