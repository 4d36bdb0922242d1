/**
 * The error classes agent code sees (`CapabilityError`, `ApprovalDeniedError`) and the description of an uncaught
 * error that the prelude sends back to the host.
 */
import type { RunErrorCode } from '@agent-spaces/capabilities';
import type { CallError, ThrownError } from './contract.js';
import {
  ErrorCtor,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  stringSlice,
  weakSetAdd,
  weakSetHas,
} from './intrinsics.js';
import { inspect, isError, readString } from './inspect.js';

/** Longest message or stack sent back for an uncaught error. */
const MAX_TEXT = 16_384;
/** Errors rebuilt from the host: only their `data` goes back (agent-made `data` may not be cloneable). */
const fromHost = new WeakSet<object>();

/** What `new CapabilityError(...)` takes: the fields of a wire error. */
interface CapabilityErrorInit {
  code: RunErrorCode;
  message: string;
  callId?: string;
  capability?: string;
  function?: string;
  data?: Record<string, unknown>;
}

function own(target: object, key: string, value: unknown): void {
  defineProperty(target, key, { value, writable: key === 'name', enumerable: false, configurable: true });
}

/** A capability call failed: a stable `code`, the `capability` and `function` called, and optional `data`. */
export class CapabilityError extends ErrorCtor {
  declare readonly code: RunErrorCode;
  declare readonly callId: string | undefined;
  declare readonly capability: string;
  declare readonly function: string;
  declare readonly data: Record<string, unknown> | undefined;

  constructor(init: CapabilityErrorInit) {
    super(init.message);
    own(this, 'name', new.target === ApprovalDeniedError ? 'ApprovalDeniedError' : 'CapabilityError');
    own(this, 'code', init.code);
    own(this, 'callId', init.callId);
    own(this, 'capability', init.capability ?? '');
    own(this, 'function', init.function ?? '');
    own(this, 'data', init.data);
  }
}

/** A call that needed approval was denied (`code === 'APPROVAL_DENIED'`). */
export class ApprovalDeniedError extends CapabilityError {}

/** Rebuilds a wire error from the host as the right class, filling in which call failed. */
export function capabilityError(error: CallError, capability: string, fn: string): CapabilityError {
  const init: CapabilityErrorInit = {
    code: error.code,
    message: error.message,
    ...(error.callId === undefined ? {} : { callId: error.callId }),
    capability: error.capability ?? capability,
    function: error.function ?? fn,
    ...(error.data === undefined ? {} : { data: error.data }),
  };
  const rebuilt = error.code === 'APPROVAL_DENIED' ? new ApprovalDeniedError(init) : new CapabilityError(init);
  weakSetAdd(fromHost, rebuilt);
  return rebuilt;
}

/** Describes a value thrown by agent code without trusting it: no agent getters run, nothing here throws. */
export function describeThrown(thrown: unknown): ThrownError {
  try {
    if (typeof thrown !== 'object' || thrown === null || !isError(thrown)) {
      return { name: 'Error', message: clip(typeof thrown === 'string' ? thrown : inspect(thrown)), stack: undefined, outOfMemory: false };
    }
    const name = readString(thrown, 'name') ?? 'Error';
    const message = readString(thrown, 'message') ?? '';
    const stack = readString(thrown, 'stack');
    const described: ThrownError = {
      name: clip(name),
      message: clip(message),
      stack: stack === undefined ? undefined : clip(stack),
      outOfMemory: name === 'RangeError' && message === 'Array buffer allocation failed',
    };
    if (isCapabilityError(thrown)) described.capabilityError = wireOf(thrown, message);
    return described;
  } catch {
    return { name: 'Error', message: 'an uncaught value that cannot be described', stack: undefined, outOfMemory: false };
  }
}

function isCapabilityError(value: object): boolean {
  for (let proto = getPrototypeOf(value); proto !== null; proto = getPrototypeOf(proto)) {
    if (proto === CapabilityError.prototype) return true;
  }
  return false;
}

function wireOf(error: object, message: string): NonNullable<ThrownError['capabilityError']> {
  const code = ownData(error, 'code');
  const callId = ownData(error, 'callId');
  const capability = ownData(error, 'capability');
  const fn = ownData(error, 'function');
  const data = weakSetHas(fromHost, error) ? ownData(error, 'data') : undefined;
  return {
    code: typeof code === 'string' ? code : 'INTERNAL',
    message: clip(message),
    ...(typeof callId === 'string' ? { callId: stringSlice(callId, 0, 64) } : {}),
    ...(typeof capability === 'string' && capability !== '' ? { capability } : {}),
    ...(typeof fn === 'string' && fn !== '' ? { function: fn } : {}),
    ...(typeof data === 'object' && data !== null ? { data: data as Record<string, unknown> } : {}),
  };
}

function ownData(target: object, key: string): unknown {
  const descriptor = getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && !hasOwn(descriptor, 'get') ? descriptor.value : undefined;
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? stringSlice(text, 0, MAX_TEXT) + '…' : text;
}
