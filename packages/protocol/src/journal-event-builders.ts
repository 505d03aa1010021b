import { eventMsg } from "./builders.js";
import type { ActivityResolvedPayload, ToolDispatchedPayload, ToolEffectPayload } from "./journal-events.js";

// Builders of the journal events (journal-events.ts): the fields without `type`.

type Fields<P> = { [K in keyof P as string extends K ? never : K extends "type" ? never : K]: P[K] };

export const toolDispatched = (fields: Fields<ToolDispatchedPayload>) =>
  eventMsg({ type: "tool_dispatched", ...fields });

export const toolEffect = (fields: Fields<ToolEffectPayload>) => eventMsg({ type: "tool_effect", ...fields });

export const activityResolved = (fields: Fields<ActivityResolvedPayload>) =>
  eventMsg({ type: "activity_resolved", ...fields });
