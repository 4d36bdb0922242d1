import type { CallOutcome, WireError } from '@agent-spaces/capabilities';
import { createBridge, type Bridge } from '@agent-spaces/bridge';
import { expect } from 'vitest';
import { createStdCapability, type StdOptions } from '../src/index.js';
import { StdError } from '../src/sandbox/errors.js';

/** A real bridge over the std capability, called the way the sandbox calls it: `call('std', fn, params)`. */
export function stdBridge(options: StdOptions): { bridge: Bridge; call: (fn: string, params?: unknown) => Promise<CallOutcome> } {
  const bridge = createBridge({ capabilities: [createStdCapability(options)] });
  const signal = new AbortController().signal;
  return { bridge, call: (fn, params) => bridge.call({ kind: 'call', capability: 'std', function: fn, params }, signal) };
}

/** The value of a successful outcome (fails the test otherwise). */
export function valueOf(outcome: CallOutcome): unknown {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** The error of a failed outcome (fails the test otherwise). */
export function errorOf(outcome: CallOutcome): WireError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

/** The `StdError` that `fn` throws (fails the test when it throws nothing or something else). */
export function thrown(fn: () => unknown): StdError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StdError);
    return error as StdError;
  }
  throw new Error('expected a StdError');
}
