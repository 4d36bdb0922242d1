/**
 * True when `value` is a promise (or any thenable). The steps of a call return plain values when they can, so that a
 * call whose steps are all synchronous waits only where it must (bench/policies.mjs measures the gate per call).
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
