import type { AnyRouteSpec } from "../../http/route.js";
import { sessionApprovalRoutes } from "./approvals.js";
import { sessionCompactionRoutes } from "./compaction.js";
import { sessionHistoryRoutes } from "./history.js";
import { sessionLifecycleRoutes } from "./lifecycle.js";
import { sessionNoticeRoutes } from "./notices.js";
import { sessionProcessRoutes } from "./processes.js";
import type { SessionRoutesOptions } from "./session-route.js";
import { sessionStreamRoutes } from "./streams.js";
import { sessionTaskRoutes } from "./tasks.js";

export type { SessionRoutesOptions } from "./session-route.js";

/** Sessions, tasks, notices, compaction, steering, abort, approvals, history, trace, processes and the live streams. */
export function sessionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  return [
    ...sessionLifecycleRoutes(options),
    ...sessionTaskRoutes(options),
    ...sessionNoticeRoutes(options),
    ...sessionCompactionRoutes(options),
    ...sessionApprovalRoutes(options),
    ...sessionHistoryRoutes(options),
    ...sessionProcessRoutes(options),
    ...sessionStreamRoutes(options),
  ];
}
