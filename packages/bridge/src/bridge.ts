import type { CallMessage, CallOutcome, HostPort, WireError } from '@agent-spaces/capabilities';
import { ApprovalDesk, type Approvals } from './approvals.js';
import { approveScript } from './call/approve.js';
import { RunningCalls } from './call/execute.js';
import { functionTable } from './call/lookup.js';
import { runCall } from './call/pipeline.js';
import { NO_REDACTION } from './call/redact.js';
import type { CallSteps } from './call/steps.js';
import { defaultPolicy } from './policy.js';
import { createRateLimiter } from './rate-limit.js';
import type { BridgeOptions, CallOrigin, HostCapability } from './types.js';

/** The host side of every capability call: a {@link HostPort} over a fixed set of capabilities. */
export interface Bridge extends HostPort {
  /** The capabilities calls can reach, as given to {@link createBridge}. */
  readonly capabilities: readonly HostCapability[];
  /** Pending approval requests; `resolve(id, answer)` answers one. */
  readonly approvals: Approvals;
  /**
   * {@link HostPort.call}, plus where the call comes from: its run and session, and who hears its events. The bridge
   * numbers the call (ids are unique within the bridge, so across the runs and sessions of a space) and that one id
   * is carried by its events, its approval request, its audit line and its error.
   */
  call(message: CallMessage, signal: AbortSignal, origin?: CallOrigin): Promise<CallOutcome>;
  /**
   * Asks for approval of a whole script before it runs (`policies.approveScripts`), showing its code; the request
   * (id `script-<runId>`) and its answer reach `origin.onEvent`. Resolves undefined when approved, else the error the
   * run ends with (`APPROVAL_DENIED`, or `ABORTED` when `signal` aborts while it waits).
   */
  approveScript(code: string, origin: CallOrigin & { runId: string }, signal: AbortSignal): Promise<WireError | undefined>;
  /**
   * Output of a capability's host side made outside any call (an MCP server's stderr), labelled `source`
   * (`mcp server slack`): redacted, it becomes a run log of the capability's call in flight when there is exactly
   * one, else a line on the host's stderr. (Console output of code run for a call is captured per call.)
   */
  output(capability: string, source: string, text: string): void;
  /**
   * A copy of `value` with the space's secret values replaced (`value` itself when it holds none): what the space
   * hands out besides call outcomes (run events and results, observed MCP results) passes through here.
   */
  redact<T>(value: T): T;
}

/**
 * Creates the bridge, the one owner of a call from arrival to outcome: `call()` numbers the call and runs it through
 * its steps (src/call/: look up among `options.capabilities` only, validate a private copy of the params, policy,
 * approval, rate limit, execute, redact, record in the audit log, with the call's events along the way). `call()`
 * never rejects (docs/policies.md).
 * @example
 * const bridge = createBridge({ capabilities: await loadCapabilities(dir, ['train-schedule']) });
 * const outcome = await bridge.call({ kind: 'call', capability: 'train-schedule', function: 'getSchedule', params: {} }, signal);
 */
export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = Object.freeze([...options.capabilities]);
  const steps = callSteps(options, capabilities);
  let sequence = 0;
  return {
    capabilities,
    approvals: steps.approvals,
    output: (capability, source, text) => steps.running.output(capability, source, text),
    redact: (value) => steps.redactor.value(value),
    approveScript: (code, origin, signal) => approveScript(steps, code, origin, signal),
    call: (message, signal, origin = {}) => runCall(steps, String(++sequence), message, signal, origin),
  };
}

/** The parts of each step of a call, from the bridge's options. */
function callSteps(options: BridgeOptions, capabilities: readonly HostCapability[]): CallSteps {
  const redactor = options.redactor ?? NO_REDACTION;
  const approvals = new ApprovalDesk({
    ...(options.onApproval ? { approver: options.onApproval } : {}),
    ...(options.awaitApprovals ? { awaitResolve: true } : {}),
    ...(options.approvalTimeoutMs ? { timeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.approvalStore ? { store: options.approvalStore } : {}),
  });
  const limiter = createRateLimiter({
    capabilities,
    ...(options.rateLimits ? { overrides: options.rateLimits } : {}),
    ...(options.rateLimitMaxWaitMs ? { maxWaitMs: options.rateLimitMaxWaitMs } : {}),
    ...(options.rateLimitHistory ? { history: options.rateLimitHistory } : {}),
    ...(options.rateLimitStore ? { store: options.rateLimitStore } : {}),
  });
  return {
    table: functionTable(capabilities),
    policy: options.policy ?? defaultPolicy,
    approvals,
    limiter,
    redactor,
    audit: options.audit,
    running: new RunningCalls(redactor),
    space: options.space,
    approvers: options.approvers,
  };
}
