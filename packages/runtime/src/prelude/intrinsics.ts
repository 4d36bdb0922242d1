/**
 * Intrinsics the prelude relies on, captured when the prelude runs, before any agent code. Agent code may replace
 * globals or patch prototypes afterwards; the prelude keeps using these originals, so what it sends to the host and
 * how it formats values cannot be changed from inside.
 */

const { apply } = Reflect;
const callFn = Function.prototype.call;
const bindFn = Function.prototype.bind;

/** `fn.call` as a plain function of `(self, ...args)`, immune to later patching of `Function.prototype`. */
function uncurryThis<T, A extends unknown[], R>(fn: (this: T, ...args: A) => R): (self: T, ...args: A) => R {
  return apply(bindFn, callFn, [fn]) as (self: T, ...args: A) => R;
}

function getter<T>(proto: object, key: PropertyKey): (self: T) => unknown {
  const descriptor = Reflect.getOwnPropertyDescriptor(proto, key);
  return uncurryThis(descriptor!.get as (this: T) => unknown);
}

export const ObjectCtor = Object;
export const PromiseCtor = Promise;
export const ErrorCtor = Error;
export const JsonStringify = JSON.stringify;
export const defineProperty = Reflect.defineProperty;
export const deleteProperty = Reflect.deleteProperty;
export const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
export const getPrototypeOf = Reflect.getPrototypeOf;
export const ownKeys = Reflect.ownKeys;
export const freeze = Object.freeze;
export const hasOwn = Object.hasOwn;
export const applyFunction = apply;
export const isArray = Array.isArray;
export const isView = ArrayBuffer.isView;

export const mapSize = getter<Map<unknown, unknown>>(Map.prototype, 'size');
export const mapForEach = uncurryThis(Map.prototype.forEach as (this: Map<unknown, unknown>, cb: (v: unknown, k: unknown) => void) => void);
export const setSize = getter<Set<unknown>>(Set.prototype, 'size');
export const setForEach = uncurryThis(Set.prototype.forEach as (this: Set<unknown>, cb: (v: unknown) => void) => void);
export const weakSetAdd = uncurryThis(WeakSet.prototype.add as (this: WeakSet<object>, value: object) => WeakSet<object>);
export const weakSetHas = uncurryThis(WeakSet.prototype.has as (this: WeakSet<object>, value: object) => boolean);
const dateGetTime = uncurryThis(Date.prototype.getTime);
export const dateToIsoString = uncurryThis(Date.prototype.toISOString);
export const regExpToString = uncurryThis(RegExp.prototype.toString);
const regExpSource = getter<RegExp>(RegExp.prototype, 'source');
export const symbolToString = uncurryThis(Symbol.prototype.toString);
export const functionToString = uncurryThis(Function.prototype.toString);
export const arrayBufferByteLength = getter<ArrayBuffer>(ArrayBuffer.prototype, 'byteLength');
export const stringSlice = uncurryThis(String.prototype.slice);
export const stringCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const typedArrayLength = getter<Uint8Array>(Object.getPrototypeOf(Uint8Array.prototype) as object, 'length');
export const dataViewByteLength = getter<DataView>(DataView.prototype, 'byteLength');
export const typedArrayToStringTag = getter<Uint8Array>(Object.getPrototypeOf(Uint8Array.prototype) as object, Symbol.toStringTag);

/** True when `value` is a real Map (brand check, not `instanceof`). */
export function isMap(value: object): value is Map<unknown, unknown> {
  try {
    mapSize(value as Map<unknown, unknown>);
    return true;
  } catch {
    return false;
  }
}

/** True when `value` is a real Set. */
export function isSet(value: object): value is Set<unknown> {
  try {
    setSize(value as Set<unknown>);
    return true;
  } catch {
    return false;
  }
}

/** True when `value` is a real Date. */
export function isDate(value: object): value is Date {
  try {
    dateGetTime(value as Date);
    return true;
  } catch {
    return false;
  }
}

/** True when `value` is a real RegExp. */
export function isRegExp(value: object): value is RegExp {
  try {
    regExpSource(value as RegExp);
    return true;
  } catch {
    return false;
  }
}

/** True when `value` is a real ArrayBuffer. */
export function isArrayBuffer(value: object): value is ArrayBuffer {
  try {
    arrayBufferByteLength(value as ArrayBuffer);
    return true;
  } catch {
    return false;
  }
}
