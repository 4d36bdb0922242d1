import type { Redactor } from '@agent-spaces/capabilities';
import type { ApprovalDesk } from '../approvals.js';
import type { AuditSink } from '../stores/audit-log.js';
import type { RateLimiter } from '../rate-limit.js';
import type { ApprovalRequirement, PolicyHook } from '../types.js';
import type { RunningCalls } from './execute.js';
import type { FunctionTable } from './lookup.js';

/** The parts a call goes through, assembled once by `createBridge`: one per step of the call. */
export interface CallSteps {
  table: FunctionTable;
  policy: PolicyHook;
  approvals: ApprovalDesk;
  limiter: RateLimiter | undefined;
  /** Replaces secret values in outcomes, approval requests, audit lines and output (the identity without secrets). */
  redactor: Redactor;
  audit: AuditSink | undefined;
  running: RunningCalls;
  /** The space's name, put in approval requests. */
  space: string | undefined;
  /** Who may answer approval requests whose decision does not say (`BridgeOptions.approvers`). */
  approvers: ApprovalRequirement | undefined;
}
