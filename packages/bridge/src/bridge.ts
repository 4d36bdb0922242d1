import {
  AgentSpacesError,
  isAgentSpacesError,
  isPlainObject,
  toWireError,
  type CallMessage,
  type CallOutcome,
  type HandlerContext,
  type HostPort,
  type Redactor,
  type WireError,
} from '@agent-spaces/capabilities';
import { ApprovalDesk, type ApprovalOutcome } from './approvals.js';
import { isoNow, type AuditEntry, type AuditSink } from './audit.js';
import { callSink, hostStderr, withOutput, type OutputSink } from './host-output.js';
import { defaultPolicy } from './policy.js';
import { createRateLimiter } from './rate-limit.js';
import { endCallSpan, startCallSpan } from './tracing.js';
import type {
  ApprovalRequest,
  BridgeOptions,
  CallDecision,
  CallOrigin,
  HostCapability,
  HostFunction,
  PendingCall,
  PolicyDecision,
} from './types.js';
import { compileParamsCheck, paramsCheck, snapshotParams, type ParamIssue, type ParamsCheck } from './validate.js';

/** The host side of every capability call: a {@link HostPort} over a fixed set of capabilities. */
export interface Bridge extends HostPort {
  /** The capabilities calls can reach, as given to {@link createBridge}. */
  readonly capabilities: readonly HostCapability[];
  /** Pending approval requests; `resolve(id, answer)` answers one. */
  readonly approvals: ApprovalDesk;
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
}

/** A function as the bridge dispatches it; its params check is made on its first call. */
interface Entry {
  capability: HostCapability;
  fn: HostFunction;
  check: ParamsCheck | undefined;
  schemaError: string | undefined;
}

/**
 * Creates the bridge, the one owner of a call from arrival to outcome: `call()` numbers the call and tells
 * `origin.onEvent` (`capabilityCall`), looks the capability and function up among `options.capabilities` only, takes
 * a private copy of the params and validates it against the function's schema (ajv, compiled once per function on
 * first use), applies the policy (asking through `approvals` when it says `ask`, with `approvalRequired` /
 * `approvalResolved` events), waits for the rate limits, executes (the handler's `context.progress` becomes `progress`
 * events), redacts the outcome, appends it to the audit log, tells `capabilityResult` and returns the outcome.
 * `call()` never rejects (docs/policies.md).
 * @example
 * const bridge = createBridge({ capabilities: await loadCapabilities(dir, ['train-schedule']) });
 * const outcome = await bridge.call({ kind: 'call', capability: 'train-schedule', function: 'getSchedule', params: {} }, signal);
 */
export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = Object.freeze([...options.capabilities]);
  const table = new Map<string, Map<string, Entry>>();
  for (const capability of capabilities) {
    if (table.has(capability.id)) {
      throw new AgentSpacesError('NAME_COLLISION', `Two capabilities have the id '${capability.id}'`, { id: capability.id });
    }
    const entries = new Map<string, Entry>();
    for (const [name, fn] of capability.functions) {
      entries.set(name, { capability, fn, check: undefined, schemaError: undefined });
    }
    table.set(capability.id, entries);
  }
  const policy = options.policy ?? defaultPolicy;
  const { redactor, audit } = options;
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
  let sequence = 0;
  const redactText = redactor ? redactor.text : (text: string) => text;
  /** The output sinks of the calls executing now, by capability id. */
  const running = new Map<string, Set<OutputSink>>();

  async function dispatch(message: CallMessage, signal: AbortSignal, callId: string, trace: Trace, origin: CallOrigin): Promise<unknown> {
    const entry = lookup(table, message);
    const params = copyParams(entry, message.params);
    const check = entry.check ?? makeCheck(entry);
    const issues = (isThenable(check) ? await check : check)(params);
    if (issues) throw invalidParams(entry, issues);
    trace.params = params;
    const pending: PendingCall = { id: callId, capability: entry.capability, function: entry.fn, params, signal };
    const decided = decide(pending);
    await gate(isThenable(decided) ? await untilAborted(decided, signal) : decided, pending, trace, origin);
    if (limiter) await limiter.acquire(pending);
    if (signal.aborted) throw new AgentSpacesError('ABORTED', 'The run was aborted before the call executed');
    const context: HandlerContext = { capability: entry.capability.exportName, function: entry.fn.sourceName, signal, progress: progressOf(message, callId, origin, trace) };
    trace.executing = true;
    const id = entry.capability.id;
    const sink = callSink(`host handler ${id}.${entry.fn.name}`, redactText, (level, text) => {
      if (trace.ended || !origin.onEvent) return false;
      notify(origin.onEvent, { type: 'log', level, message: text });
      return true;
    });
    const sinks = running.get(id) ?? running.set(id, new Set()).get(id)!;
    sinks.add(sink);
    try {
      return await withOutput(sink, () => entry.fn.execute(params, context));
    } finally {
      sinks.delete(sink);
    }
  }

  function decide(pending: PendingCall): PolicyDecision | PromiseLike<PolicyDecision> {
    try {
      return policy.decide(pending);
    } catch (error) {
      if (isAgentSpacesError(error)) throw error;
      throw new AgentSpacesError('INTERNAL', `The policy failed on ${label(pending)}: ${errorMessage(error)}`);
    }
  }

  /** Applies the decision: returns when the call may run, else records why not in `trace` and throws. */
  async function gate(decision: PolicyDecision, pending: PendingCall, trace: Trace, origin: CallOrigin): Promise<void> {
    const by = decision.by ?? 'policy';
    switch (decision.kind) {
      case 'allow':
        trace.decision = { kind: 'allow', by };
        return;
      case 'deny':
        trace.decision = { kind: 'deny', reason: decision.reason, by };
        throw new AgentSpacesError('POLICY_DENIED', `Policy denied ${label(pending)}: ${decision.reason}`, { reason: decision.reason });
      case 'ask': {
        trace.decision = { kind: 'ask', message: decision.message, approved: false, by };
        const request = callRequest(pending, decision.message, origin);
        if (audit && approvals.canAsk(origin.onApproval)) recordPending(audit, request, by);
        const answer = await ask(request, 'capability', pending.signal, origin);
        trace.decision = { ...trace.decision, approved: answer.approved, answeredBy: answer.by, ...(answer.reason ? { reason: answer.reason } : {}) };
        if (!answer.approved) {
          const why = answer.reason ?? (answer.by === 'timeout' ? 'it timed out' : `${answer.by} denied it`);
          throw new AgentSpacesError('APPROVAL_DENIED', `${label(pending)} was not approved: ${why}`, { message: decision.message, by: answer.by });
        }
        return;
      }
      default:
        return assertNever(decision);
    }
  }

  /** The approval request of a pending call, with secrets redacted. */
  function callRequest(pending: PendingCall, message: string, origin: CallOrigin): ApprovalRequest {
    return {
      id: pending.id,
      capability: pending.capability.id,
      function: pending.function.name,
      params: redactor ? redactor.value(pending.params) : pending.params,
      message: redactor ? redactor.text(message) : message,
      ...(origin.runId ? { runId: origin.runId } : {}),
      ...(origin.sessionId ? { sessionId: origin.sessionId } : {}),
    };
  }

  /**
   * Asks through the approval desk (`origin.onApproval` answers, when given, instead of the bridge's approver), telling
   * `origin` when the request is pending and when it is answered.
   */
  async function ask(request: ApprovalRequest, source: 'capability' | 'script', signal: AbortSignal, origin: CallOrigin): Promise<ApprovalOutcome> {
    const { onEvent: listener, onApproval: approver } = origin;
    const { id, capability, function: fn, params, message } = request;
    const onPending = () => listener?.({ type: 'approvalRequired', id, source, capability, function: fn, params, message });
    const answer = await approvals.ask(request, signal, { onPending, ...(approver ? { approver } : {}) });
    if (listener && approvals.canAsk(approver)) {
      listener({ type: 'approvalResolved', id, approved: answer.approved, by: answer.by, ...(answer.reason ? { reason: answer.reason } : {}) });
    }
    return answer;
  }

  return {
    capabilities,
    approvals,
    output(capability, source, text) {
      const sinks = running.get(capability);
      if (sinks?.size === 1) for (const sink of sinks) sink.write('info', text, source);
      else hostStderr(redactText(`[${source}] ${text}`));
    },
    async approveScript(code, origin, signal) {
      const request: ApprovalRequest = {
        id: `script-${origin.runId}`,
        capability: '',
        function: '',
        params: { code },
        message: `Run this script?\n${code}`,
        runId: origin.runId,
        ...(origin.sessionId ? { sessionId: origin.sessionId } : {}),
      };
      let answer: ApprovalOutcome;
      try {
        answer = await ask(request, 'script', signal, origin);
      } catch {
        return { code: 'ABORTED', message: 'The run was aborted while its script waited for approval' };
      }
      if (answer.approved) return undefined;
      return { code: 'APPROVAL_DENIED', message: `The script was not approved: ${answer.reason ?? `${answer.by} denied it`}`, data: { by: answer.by } };
    },
    async call(message, signal, origin = {}) {
      const callId = String(++sequence);
      const started = performance.now();
      const { onEvent } = origin;
      if (onEvent) notify(onEvent, { type: 'capabilityCall', callId, capability: message?.capability, function: message?.function, params: message?.params });
      const span = startCallSpan(message, callId, origin.traceContext);
      const trace: Trace = { decision: undefined, executing: false, ended: false, params: undefined };
      let outcome: CallOutcome;
      try {
        outcome = { ok: true, value: await dispatch(message, signal, callId, trace, origin) };
      } catch (error) {
        outcome = { ok: false, error: toWire(error, message, callId, signal, trace.executing) };
      }
      if (redactor) outcome = redactor.value(outcome);
      if (audit) {
        try {
          audit.append(auditRecord(callId, message, origin, trace, outcome, performance.now() - started, redactor));
        } catch (error) {
          // Fail closed: a call that cannot be put on record does not hand its result back.
          outcome = { ok: false, error: { code: 'INTERNAL', message: `The audit log could not be written: ${errorMessage(error)}`, ...where(message, callId) } };
        }
      }
      trace.ended = true;
      endCallSpan(span, outcome, performance.now() - started);
      if (onEvent) {
        const durationMs = performance.now() - started;
        notify(
          onEvent,
          outcome.ok
            ? { type: 'capabilityResult', callId, capability: message?.capability, function: message?.function, ok: true, durationMs }
            : { type: 'capabilityResult', callId, capability: message?.capability, function: message?.function, ok: false, durationMs, error: outcome.error },
        );
      }
      return outcome;
    },
  };
}

/**
 * The handler's `context.progress`: each report becomes a `progress` event of the call, until the call has ended (a
 * no-op when nobody listens).
 */
function progressOf(message: CallMessage, callId: string, origin: CallOrigin, trace: Trace): HandlerContext['progress'] {
  const { onEvent } = origin;
  if (!onEvent) return ignoreProgress;
  return (update) => {
    if (trace.ended || typeof update?.progress !== 'number') return;
    const { progress, total, message: text } = update;
    notify(onEvent, {
      type: 'progress',
      callId,
      capability: message.capability,
      function: message.function,
      progress,
      ...(typeof total === 'number' ? { total } : {}),
      ...(typeof text === 'string' ? { message: text } : {}),
    });
  };
}

function ignoreProgress(): void {}

/** What one call went through, for the audit log and for telling handler errors from internal ones. */
interface Trace {
  decision: CallDecision | undefined;
  executing: boolean;
  /** Set once the outcome is known: later progress reports of the handler are dropped. */
  ended: boolean;
  /** The validated params, once they passed validation. */
  params: Record<string, unknown> | undefined;
}

/**
 * Puts a call that starts waiting for approval on record before anyone is asked (a kill of the host while it waits
 * then leaves the question in the log). Fail closed: a question that cannot be put on record is not asked.
 */
function recordPending(audit: AuditSink, request: ApprovalRequest, by: string): void {
  const { id, capability, function: fn, params, message, runId, sessionId } = request;
  try {
    audit.append({
      time: isoNow(),
      ...(runId ? { runId } : {}),
      ...(sessionId ? { sessionId } : {}),
      callId: id,
      capability,
      function: fn,
      params,
      pending: 'approval',
      decision: { kind: 'ask', by, message },
    });
  } catch (error) {
    throw new AgentSpacesError('INTERNAL', `The audit log could not be written: ${errorMessage(error)}`);
  }
}

type AuditDecision = NonNullable<AuditCallEntry['decision']>;
type AuditCallEntry = Extract<AuditEntry, { outcome: unknown }>;

/** The audit entry of a call, built field by field: it is made for every call. */
function auditRecord(
  callId: string,
  message: CallMessage,
  origin: CallOrigin,
  trace: Trace,
  outcome: CallOutcome,
  durationMs: number,
  redactor: Redactor | undefined,
): AuditCallEntry {
  const params = trace.params ?? '(not valid params)';
  const entry: AuditCallEntry = {
    time: isoNow(),
    callId,
    capability: String(message?.capability),
    function: String(message?.function),
    params: redactor ? redactor.value(params) : params,
    outcome: outcome.ok ? { ok: true } : { ok: false, code: outcome.error.code, message: outcome.error.message },
    durationMs: Math.round(durationMs * 1000) / 1000,
  };
  if (origin.runId) entry.runId = origin.runId;
  if (origin.sessionId) entry.sessionId = origin.sessionId;
  if (trace.decision) entry.decision = auditDecision(trace.decision);
  return entry;
}

function auditDecision(decision: CallDecision): AuditDecision {
  const by = decision.by ?? 'policy';
  switch (decision.kind) {
    case 'allow':
      return { kind: 'allow', by };
    case 'deny':
      return { kind: 'deny', by, reason: decision.reason };
    case 'ask': {
      const asked: AuditDecision = { kind: 'ask', by, approved: decision.approved };
      if (decision.answeredBy) asked.answeredBy = decision.answeredBy;
      if (decision.reason) asked.reason = decision.reason;
      return asked;
    }
  }
}

function lookup(table: Map<string, Map<string, Entry>>, message: CallMessage): Entry {
  const entries = table.get(message.capability);
  if (!entries) {
    throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability ${quote(message.capability)} in this space`, {
      available: [...table.keys()],
    });
  }
  const entry = entries.get(message.function);
  if (!entry) {
    throw new AgentSpacesError('FUNCTION_NOT_FOUND', `Capability '${message.capability}' has no function ${quote(message.function)}`, {
      available: [...entries.keys()],
    });
  }
  return entry;
}

/** The bridge's private copy of the params (`{}` when absent); throws `INVALID_PARAMS` when they are not plain data. */
function copyParams(entry: Entry, raw: unknown): Record<string, unknown> {
  const given = raw === undefined ? {} : raw;
  if (!isPlainObject(given)) throw invalidParams(entry, [{ path: '', message: 'must be a plain object' }]);
  const snapshot = snapshotParams(given);
  if (!snapshot.ok) throw invalidParams(entry, [snapshot.issue]);
  return snapshot.value as Record<string, unknown>;
}

/**
 * The function's params check, made on its first call: from the build's validator at once (so calls keep their order),
 * else by compiling its schema. A schema that does not compile (or a validator that does not load) fails every call
 * `INTERNAL`.
 */
function makeCheck(entry: Entry): ParamsCheck | Promise<ParamsCheck> {
  if (entry.schemaError === undefined) {
    try {
      const built = entry.fn.validator?.();
      if (built) return (entry.check = paramsCheck(built));
      return compileParamsCheck(entry.fn.parameters).then(
        (check) => (entry.check = check),
        (error: unknown) => {
          entry.schemaError = errorMessage(error);
          throw schemaFailure(entry);
        },
      );
    } catch (error) {
      entry.schemaError = errorMessage(error);
    }
  }
  throw schemaFailure(entry);
}

function schemaFailure(entry: Entry): AgentSpacesError {
  return new AgentSpacesError('INTERNAL', `The params schema of ${entry.capability.id}.${entry.fn.name} does not compile: ${entry.schemaError}`);
}

function invalidParams(entry: Entry, issues: ParamIssue[]): AgentSpacesError {
  const text = issues.map((issue) => `params${issue.path}: ${issue.message}`).join('; ');
  return new AgentSpacesError('INVALID_PARAMS', `Invalid params for ${entry.capability.id}.${entry.fn.name}: ${text}`, { errors: issues });
}

function toWire(error: unknown, message: CallMessage, callId: string, signal: AbortSignal, executed: boolean): WireError {
  if (signal.aborted && executed && !isAgentSpacesError(error)) return { code: 'ABORTED', message: 'The run was aborted during the call', ...where(message, callId) };
  return { ...toWireError(error, executed ? 'HANDLER_ERROR' : 'INTERNAL'), ...where(message, callId) };
}

/** The fields that place an error: the call's id, capability and function. */
function where(message: CallMessage, callId: string): Pick<WireError, 'callId' | 'capability' | 'function'> {
  return { callId, capability: String(message?.capability), function: String(message?.function) };
}

function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

function label(call: PendingCall): string {
  return `${call.capability.id}.${call.function.name}`;
}

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : `(${typeof value})`;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Resolves like `promise`, or rejects with `ABORTED` as soon as `signal` aborts. */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AgentSpacesError('ABORTED', 'The run was aborted while the call waited'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AgentSpacesError('ABORTED', 'The run was aborted while the call waited'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function notify<E>(listener: (event: E) => void, event: E): void {
  try {
    listener(event);
  } catch {
    // Observers must not change the outcome of a call.
  }
}

function assertNever(value: never): never {
  throw new AgentSpacesError('INTERNAL', `Unknown policy decision ${JSON.stringify(value)}`);
}
