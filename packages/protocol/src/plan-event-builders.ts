import { eventMsg } from "./builders.js";
import type { PlanStep } from "./plan-events.js";

// Builders of the plan events (plan-events.ts).

/** The model's whole checklist after an `update_plan` call. */
export const planUpdated = (steps: readonly PlanStep[], note?: string) =>
  eventMsg({
    type: "plan_updated",
    steps: steps.map((entry) => ({ step: entry.step, status: entry.status })),
    ...(note !== undefined ? { note } : {}),
  });

/** The plan a plan-mode task ended with. */
export const planProposed = (text: string, path?: string) =>
  eventMsg({ type: "plan_proposed", text, ...(path !== undefined ? { path } : {}) });
