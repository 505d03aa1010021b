import type { AnyRouteSpec } from "../../http/route.js";
import { sessionAgentRoutes } from "./agents.js";
import { sessionApprovalRoutes } from "./approvals.js";
import { sessionCatchUpRoutes } from "./catch-up.js";
import { sessionChangesRoutes } from "./changes.js";
import { sessionCompactionRoutes } from "./compaction.js";
import { executionProfileRoutes } from "./execution-profiles.js";
import { sessionHistoryRoutes } from "./history.js";
import { sessionLifecycleRoutes } from "./lifecycle.js";
import { sessionNoticeRoutes } from "./notices.js";
import { sessionPlanRoutes } from "./plan.js";
import { sessionProcessRoutes } from "./processes.js";
import { sessionQuestionRoutes } from "./questions.js";
import { sessionRecoveryRoutes } from "./recovery.js";
import type { SessionRoutesOptions } from "./session-route.js";
import { sessionSetupChoiceRoutes } from "./setup-choices.js";
import { sessionStreamRoutes } from "./streams.js";
import { sessionTaskRoutes } from "./tasks.js";
import { sessionTransferRoutes } from "./transfer.js";

export type { SessionRoutesOptions } from "./session-route.js";

/** Sessions (export and import too), tasks, plan approval, notices, compaction, steering, abort, approvals, questions, history, trace, processes, agents, recovery, file changes and their revert, the live streams and their replay, and the create form's choices (workspace roots, folders, models, execution profiles). */
export function sessionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  return [
    // Before the lifecycle routes: `/api/sessions/import` is not a session id.
    ...sessionTransferRoutes(options),
    ...sessionLifecycleRoutes(options),
    ...sessionTaskRoutes(options),
    ...sessionPlanRoutes(options),
    ...sessionNoticeRoutes(options),
    ...sessionCompactionRoutes(options),
    ...sessionApprovalRoutes(options),
    ...sessionQuestionRoutes(options),
    ...sessionHistoryRoutes(options),
    ...sessionProcessRoutes(options),
    ...sessionAgentRoutes(options),
    ...sessionRecoveryRoutes(options),
    ...sessionChangesRoutes(options),
    ...sessionStreamRoutes(options),
    ...sessionCatchUpRoutes(options),
    ...sessionSetupChoiceRoutes(options),
    ...executionProfileRoutes(options),
  ];
}
