// update_plan: the model's checklist.
export { checkPlanArguments, planSummary } from "./plan-check.js";
export { PLAN_CHECKLIST_FILE, writePlanChecklist } from "./plan-file.js";
export { createUpdatePlanTool } from "./update-plan.js";
