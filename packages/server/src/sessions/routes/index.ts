import type { AnyRouteSpec } from "../../http/route.js";
import { sessionAgentRoutes } from "./agents.js";
import { sessionApprovalRoutes } from "./approvals.js";
import { sessionChangesRoutes } from "./changes.js";
import { sessionCompactionRoutes } from "./compaction.js";
import { sessionHistoryRoutes } from "./history.js";
import { sessionLifecycleRoutes } from "./lifecycle.js";
import { sessionNoticeRoutes } from "./notices.js";
import { sessionProcessRoutes } from "./processes.js";
import { sessionQuestionRoutes } from "./questions.js";
import { sessionRecoveryRoutes } from "./recovery.js";
import type { SessionRoutesOptions } from "./session-route.js";
import { sessionStreamRoutes } from "./streams.js";
import { sessionTaskRoutes } from "./tasks.js";

export type { SessionRoutesOptions } from "./session-route.js";

/** Sessions, tasks, notices, compaction, steering, abort, approvals, questions, history, trace, processes, agents, recovery, file changes and their revert, and the live streams. */
export function sessionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  return [
    ...sessionLifecycleRoutes(options),
    ...sessionTaskRoutes(options),
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
  ];
}
