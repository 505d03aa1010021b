// Notices and the event handlers that take them (`.agents/events/<name>.md`): a session's queue of
// notices, delivered to the model at turn boundaries or by a wake turn, as quoted data.

export {
  HandlerCatalog,
  type HandlerWarning,
  loadSessionHandlers,
  type WorkspaceHandlersLoad,
  workspaceHandlersWarnings,
} from "./handlers.js";
export {
  NOTICE_ID_PREFIX,
  NoticeBoard,
  type NoticeBoardOptions,
  type NoticeDriver,
  type PendingNoticeInfo,
} from "./notice-board.js";
export {
  NOTICE_DATA_MAX_BYTES,
  NOTICE_SUMMARY_MAX_BYTES,
  type NoticeInput,
  type NoticeRefusal,
  type NotifyOutcome,
  RESERVED_NOTICE_PREFIXES,
} from "./notice-input.js";
export { NOTICE_TAG, type Notice, noticeText } from "./notice-text.js";
export { WAKE_WINDOW_MS, WakeCap } from "./wake-cap.js";
