export { createSpace, type RunOptions, type Session, type Space, type SpaceOptions } from './space.js';
export { Run, type RunLog, type RunResult, type RunStats } from './run.js';
export { RUN_EVENT_PARAMS_BYTES, type TruncatedParams } from './budget.js';
export type { TypecheckDiagnostic } from './typecheck.js';
export type { SandboxStats } from '@agent-spaces/runtime';
export {
  auditLogFile,
  readAuditLog,
  streamAuditLogs,
  type ApprovalAnswer,
  type ApprovalContext,
  type ApprovalRequest,
  type Approvals,
  type Approver,
  type AuditRecord,
  type PendingCall,
  type PolicyDecision,
  type PolicyHook,
  type RuntimeHandlers,
} from '@agent-spaces/bridge';
