export { createSpace, type RunOptions, type Session, type Space, type SpaceOptions } from './space.js';
export { Run, type RunLog, type RunResult, type RunStats } from './run.js';
export type { TypecheckDiagnostic } from './typecheck.js';
export {
  auditLogFile,
  readAuditLog,
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approvals,
  type Approver,
  type AuditRecord,
} from '@agent-spaces/bridge';
