import type { CallDecision } from '../types.js';

/** What one call went through, for the audit log and for telling handler errors from internal ones. */
export interface CallState {
  decision: CallDecision | undefined;
  executing: boolean;
  /** Set once the outcome is known: later progress reports and output of the handler are dropped. */
  ended: boolean;
  /** The validated params, once they passed validation. */
  params: Record<string, unknown> | undefined;
}
