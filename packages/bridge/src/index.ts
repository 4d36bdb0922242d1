export { createBridge, type Bridge } from './bridge.js';
export { compileSchema, loadValidatorsCompiler, type ValidatorsCompiler } from './validate.js';
export type { Approvals } from './approvals.js';
export { AuditLog, auditLogFile, isoNow, readAuditLog, type AuditEntry, type AuditRecord, type AuditSink } from './audit.js';
export { createPolicy } from './policy.js';
export { createRedactor, placeholderNames, secretsFromEnv, type Redactor } from './redact.js';
export { loadCapabilities, type LoadOptions } from './load.js';
export { createOpenApiExecutor } from './executors/openapi.js';
export type {
  ApprovalAnswer,
  ApprovalRequest,
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
