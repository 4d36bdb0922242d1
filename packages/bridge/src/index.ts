export { createBridge, type Bridge } from './bridge.js';
export { createGate, type Gate, type GateConfig, type GateStores } from './gate.js';
export { compileSchema, loadValidatorsCompiler, type ValidatorsCompiler } from './validate.js';
export type { SchemaProblem } from './schema-problem.js';
export type { Approvals } from './approvals.js';
export { ApprovalService, expiredOutcome, type ApprovalView, type ServiceAnswer } from './approval-service.js';
export {
  AuditLog,
  auditLogFile,
  isoNow,
  type AuditCallRecord,
  type AuditEntry,
  type AuditPrincipal,
  type AuditPendingRecord,
  type AuditRecord,
  type AuditRotation,
  type AuditSink,
} from './stores/audit-log.js';
export { readAuditLog, streamAuditLogs, type AuditRead } from './stores/audit-read.js';
/** Stores of the bridge's state: an interface each, and the embedded implementation (files and memory). */
export {
  FileAuditArchive,
  FileAuditStore,
  type AuditArchive,
  type AuditQuery,
  type AuditStore,
  type FileAuditStoreOptions,
} from './stores/audit.js';
export { MemoryRateLimitStore, type Admission, type RateLimitStore, type RateWindow } from './stores/rate-limit.js';
export { MemoryApprovalStore } from './stores/approvals.js';
export { FileApprovalStore, type FileApprovalStoreOptions } from './stores/approval-files.js';
export { stateFolder } from './stores/state-files.js';
export { FileUserSecrets, MAX_USER_SECRETS_BYTES } from './stores/user-secrets.js';
export {
  MemoryRunStore,
  type KeptRun,
  type LedgerCall,
  type RunCall,
  type RunEnd,
  type RunQuery,
  type RunRecord,
  type RunReplay,
  type RunStatus,
  type RunStore,
  type StartedRun,
} from './stores/runs.js';
export { FileRunStore, type FileRunStoreOptions } from './stores/run-files.js';
export { MemorySessionStore, type SessionInfo, type SessionQuery, type SessionStore } from './stores/sessions.js';
export { FileSessionStore } from './stores/session-files.js';
export { createPolicy } from './policy.js';
export { loadCapabilities, type LoadOptions } from './load.js';
export { HostModules } from './executors/module.js';
export { createOpenApiExecutor } from './executors/openapi.js';
export type {
  ApprovalAnswer,
  ApprovalContext,
  ApprovalOutcome,
  AdmittedCall,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalRequester,
  ApprovalRequirement,
  ApprovalStore,
  Approver,
  BridgeOptions,
  CallEvent,
  CallOrigin,
  HostCapability,
  HostFunction,
  PendingCall,
  PolicyDecision,
  PolicyHook,
  RuntimeHandlers,
} from './types.js';
