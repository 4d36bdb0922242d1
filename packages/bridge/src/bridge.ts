import {
  AgentSpacesError,
  isAgentSpacesError,
  type CallMessage,
  type CallOutcome,
  type ErrorCode,
  type HandlerContext,
  type HostPort,
  type WireError,
} from '@agent-spaces/capabilities';
import { defaultPolicy } from './policy.js';
import type {
  ApprovalRequest,
  BridgeOptions,
  CallDecision,
  CallFinished,
  HostCapability,
  HostFunction,
  PendingCall,
  PolicyDecision,
} from './types.js';
import { SchemaCompiler, type ParamIssue, type ParamsCheck } from './validate.js';

/** The host side of every capability call: a {@link HostPort} over a fixed set of capabilities. */
export interface Bridge extends HostPort {
  /** The capabilities calls can reach, as given to {@link createBridge}. */
  readonly capabilities: readonly HostCapability[];
}

/** A function as the bridge dispatches it; its params check is compiled on the first call. */
interface Entry {
  capability: HostCapability;
  fn: HostFunction;
  check: ParamsCheck | undefined;
  schemaError: string | undefined;
}

/** Thrown inside a call to end it with a given wire error. */
class CallFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * Creates the bridge: `call()` looks the capability and function up among `options.capabilities` only, validates
 * params against the function's schema (ajv, compiled once per function on first use), applies the policy (asking
 * `onApproval` when it says `ask`), executes, and returns the outcome. `call()` never rejects.
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
    for (const [name, fn] of capability.functions) entries.set(name, { capability, fn, check: undefined, schemaError: undefined });
    table.set(capability.id, entries);
  }
  const compiler = new SchemaCompiler();
  const policy = options.policy ?? defaultPolicy;
  const { onApproval, onCall, onResult } = options;
  let sequence = 0;

  async function dispatch(message: CallMessage, signal: AbortSignal, callId: string, trace: Trace): Promise<unknown> {
    const entry = lookup(table, message);
    const params = checkParams(entry, message.params, compiler);
    const pending: PendingCall = { id: callId, capability: entry.capability, function: entry.fn, params, signal };
    const decided = decide(pending);
    await gate(isThenable(decided) ? await untilAborted(decided, signal) : decided, pending, trace);
    if (signal.aborted) throw new CallFailure('ABORTED', 'The run was aborted before the call executed');
    const context: HandlerContext = { capability: entry.capability.exportName, function: entry.fn.sourceName, signal };
    trace.executing = true;
    return entry.fn.execute(params, context);
  }

  function decide(pending: PendingCall): PolicyDecision | PromiseLike<PolicyDecision> {
    try {
      return policy.decide(pending);
    } catch (error) {
      if (isAgentSpacesError(error)) throw error;
      throw new CallFailure('INTERNAL', `The policy failed on ${label(pending)}: ${errorMessage(error)}`);
    }
  }

  /** Applies the decision: returns when the call may run, else records why not in `trace` and throws. */
  async function gate(decision: PolicyDecision, pending: PendingCall, trace: Trace): Promise<void> {
    switch (decision.kind) {
      case 'allow':
        trace.decision = decision;
        return;
      case 'deny':
        trace.decision = decision;
        throw new CallFailure('POLICY_DENIED', `Policy denied ${label(pending)}: ${decision.reason}`, { reason: decision.reason });
      case 'ask': {
        trace.decision = { kind: 'ask', message: decision.message, approved: false };
        const approved = await askApprover(pending, decision.message);
        if (approved !== true) {
          throw new CallFailure('APPROVAL_DENIED', `${label(pending)} was not approved: ${approved}`, { message: decision.message });
        }
        trace.decision = { kind: 'ask', message: decision.message, approved: true };
        return;
      }
      default:
        return assertNever(decision);
    }
  }

  /** `true` when approved, else the reason it was not. */
  async function askApprover(pending: PendingCall, message: string): Promise<true | string> {
    if (!onApproval) return 'no approver is configured';
    const request: ApprovalRequest = {
      id: pending.id,
      capability: pending.capability.id,
      function: pending.function.name,
      params: pending.params,
      message,
    };
    let answer: boolean;
    try {
      answer = await untilAborted(Promise.resolve().then(() => onApproval(request)), pending.signal);
    } catch (error) {
      if (error instanceof CallFailure) throw error;
      return `the approver failed: ${errorMessage(error)}`;
    }
    return answer === true ? true : 'the approver denied it';
  }

  return {
    capabilities,
    async call(message, signal) {
      const callId = String(++sequence);
      const started = onResult ? performance.now() : 0;
      if (onCall) notify(onCall, { callId, capability: message?.capability, function: message?.function, params: message?.params });
      const trace: Trace = { decision: undefined, executing: false };
      let outcome: CallOutcome;
      try {
        outcome = { ok: true, value: await dispatch(message, signal, callId, trace) };
      } catch (error) {
        outcome = { ok: false, error: toWire(error, message, signal, trace.executing) };
      }
      if (onResult) {
        notify(onResult, {
          callId,
          capability: message?.capability,
          function: message?.function,
          outcome,
          durationMs: performance.now() - started,
          ...(trace.decision ? { decision: trace.decision } : {}),
        });
      }
      return outcome;
    },
  };
}

/** What one call went through, for {@link CallFinished} and for telling handler errors from internal ones. */
interface Trace {
  decision: CallDecision | undefined;
  executing: boolean;
}

function lookup(table: Map<string, Map<string, Entry>>, message: CallMessage): Entry {
  const entries = table.get(message.capability);
  if (!entries) {
    throw new CallFailure('CAPABILITY_NOT_FOUND', `No capability ${quote(message.capability)} in this space`, {
      available: [...table.keys()],
    });
  }
  const entry = entries.get(message.function);
  if (!entry) {
    throw new CallFailure('FUNCTION_NOT_FOUND', `Capability '${message.capability}' has no function ${quote(message.function)}`, {
      available: [...entries.keys()],
    });
  }
  return entry;
}

function checkParams(entry: Entry, raw: unknown, compiler: SchemaCompiler): Record<string, unknown> {
  const params = raw === undefined ? {} : raw;
  if (!isPlainObject(params)) throw invalidParams(entry, [{ path: '', message: 'must be a plain object' }]);
  const issues = (entry.check ?? compileCheck(entry, compiler))(params);
  if (issues) throw invalidParams(entry, issues);
  return params;
}

function compileCheck(entry: Entry, compiler: SchemaCompiler): ParamsCheck {
  if (entry.schemaError === undefined) {
    try {
      return (entry.check = compiler.compile(entry.fn.parameters));
    } catch (error) {
      entry.schemaError = errorMessage(error);
    }
  }
  throw new CallFailure('INTERNAL', `The params schema of ${entry.capability.id}.${entry.fn.name} does not compile: ${entry.schemaError}`);
}

function invalidParams(entry: Entry, issues: ParamIssue[]): CallFailure {
  const text = issues.map((issue) => `params${issue.path}: ${issue.message}`).join('; ');
  return new CallFailure('INVALID_PARAMS', `Invalid params for ${entry.capability.id}.${entry.fn.name}: ${text}`, { errors: issues });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function toWire(error: unknown, message: CallMessage, signal: AbortSignal, executed: boolean): WireError {
  const where = { capability: String(message?.capability), function: String(message?.function) };
  if (error instanceof CallFailure) {
    return { code: error.code, message: error.message, ...where, ...(error.data ? { data: error.data } : {}) };
  }
  if (isAgentSpacesError(error)) return { ...error.toWire(), ...where };
  if (signal.aborted && executed) return { code: 'ABORTED', message: 'The run was aborted during the call', ...where };
  return { code: executed ? 'HANDLER_ERROR' : 'INTERNAL', message: errorMessage(error), ...where };
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
  if (signal.aborted) return Promise.reject(new CallFailure('ABORTED', 'The run was aborted while the call waited'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CallFailure('ABORTED', 'The run was aborted while the call waited'));
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
  throw new CallFailure('INTERNAL', `Unknown policy decision ${JSON.stringify(value)}`);
}
