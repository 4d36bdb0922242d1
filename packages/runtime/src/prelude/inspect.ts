/**
 * A small, safe `util.inspect` for the sandbox console. It uses only captured intrinsics, never calls agent getters
 * (accessors print as `[Getter]`), survives cycles, proxies and throwing objects, and bounds depth and width.
 */
import {
  JsonStringify,
  applyFunction,
  arrayBufferByteLength,
  dataViewByteLength,
  dateToIsoString,
  functionToString,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  isArray,
  isArrayBuffer,
  isDate,
  isMap,
  isRegExp,
  isSet,
  isView,
  mapForEach,
  mapSize,
  ownKeys,
  regExpToString,
  setForEach,
  setSize,
  stringCharCodeAt,
  stringSlice,
  symbolToString,
  typedArrayLength,
  typedArrayToStringTag,
} from './intrinsics.js';

const MAX_DEPTH = 4;
const MAX_ITEMS = 100;
const ErrorPrototype: object = Error.prototype;

/** Ancestors of the value being formatted, as a linked list (no arrays: their setters can be patched). */
interface Ancestors {
  value: object;
  parent: Ancestors | undefined;
}

/** Formats console arguments the way Node does: strings as they are, other values inspected, joined by spaces. */
export function formatLogArgs(args: ArrayLike<unknown>): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (i > 0) out += ' ';
    out += typeof arg === 'string' ? arg : inspect(arg);
  }
  return out;
}

/** A readable one-line rendering of any value. Never throws. */
export function inspect(value: unknown): string {
  return format(value, 0, undefined);
}

/** True when `value` has `Error.prototype` on its prototype chain (walked by hand: `instanceof` can be hooked). */
export function isError(value: object): boolean {
  try {
    for (let proto = getPrototypeOf(value); proto !== null; proto = getPrototypeOf(proto)) {
      if (proto === ErrorPrototype) return true;
    }
  } catch {
    // a revoked proxy: not an error
  }
  return false;
}

function format(value: unknown, depth: number, ancestors: Ancestors | undefined): string {
  switch (typeof value) {
    case 'string':
      return depth === 0 ? value : quote(value);
    case 'number':
      return value === 0 && 1 / value < 0 ? '-0' : '' + value;
    case 'bigint':
      return '' + value + 'n';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return symbolToString(value);
    case 'function':
      return formatFunction(value);
    default:
      if (value === null) return 'null';
      try {
        return formatObject(value as object, depth, ancestors);
      } catch {
        return '[Uninspectable]';
      }
  }
}

function formatObject(value: object, depth: number, ancestors: Ancestors | undefined): string {
  for (let a = ancestors; a !== undefined; a = a.parent) if (a.value === value) return '[Circular]';
  if (isDate(value)) {
    try {
      return dateToIsoString(value);
    } catch {
      return 'Invalid Date';
    }
  }
  if (isRegExp(value)) return regExpToString(value);
  if (isError(value)) return formatError(value, depth);
  if (depth >= MAX_DEPTH) return isArray(value) ? '[Array]' : '[Object]';
  const inner: Ancestors = { value, parent: ancestors };
  if (isArray(value)) return '[' + formatIndexed(value, value.length, depth, inner) + ']';
  if (isMap(value)) {
    let body = '';
    let count = 0;
    mapForEach(value, (v, k) => {
      if (count++ >= MAX_ITEMS) return;
      body += (count > 1 ? ', ' : ' ') + format(k, depth + 1, inner) + ' => ' + format(v, depth + 1, inner);
    });
    const size = mapSize(value) as number;
    return 'Map(' + size + ') {' + more(body, size) + '}';
  }
  if (isSet(value)) {
    let body = '';
    let count = 0;
    setForEach(value, (v) => {
      if (count++ >= MAX_ITEMS) return;
      body += (count > 1 ? ', ' : ' ') + format(v, depth + 1, inner);
    });
    const size = setSize(value) as number;
    return 'Set(' + size + ') {' + more(body, size) + '}';
  }
  if (isArrayBuffer(value)) return 'ArrayBuffer { byteLength: ' + arrayBufferByteLength(value) + ' }';
  if (isView(value)) {
    const tag = typedArrayToStringTag(value as Uint8Array);
    if (typeof tag !== 'string') return 'DataView { byteLength: ' + dataViewByteLength(value as DataView) + ' }';
    const length = typedArrayLength(value as Uint8Array) as number;
    return tag + '(' + length + ') [' + formatIndexed(value as unknown as ArrayLike<unknown>, length, depth, inner) + ']';
  }
  return formatPlain(value, depth, inner);
}

function formatIndexed(value: ArrayLike<unknown>, length: number, depth: number, inner: Ancestors): string {
  let body = '';
  const shown = length < MAX_ITEMS ? length : MAX_ITEMS;
  for (let i = 0; i < shown; i++) {
    const descriptor = getOwnPropertyDescriptor(value, i);
    body += (i > 0 ? ', ' : ' ') + (descriptor === undefined ? '<empty>' : formatProperty(descriptor, depth, inner));
  }
  return more(body, length);
}

function formatPlain(value: object, depth: number, inner: Ancestors): string {
  const keys = ownKeys(value);
  let body = '';
  let count = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const descriptor = getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    if (count++ >= MAX_ITEMS) continue;
    const name = typeof key === 'symbol' ? '[' + symbolToString(key) + ']' : isIdentifier(key) ? key : quote(key);
    body += (count > 1 ? ', ' : ' ') + name + ': ' + formatProperty(descriptor, depth, inner);
  }
  const prefix = constructorPrefix(value);
  return (prefix === '' ? '' : prefix + ' ') + '{' + more(body, count) + '}';
}

function formatProperty(descriptor: PropertyDescriptor, depth: number, inner: Ancestors): string {
  if (!hasOwn(descriptor, 'get')) return format(descriptor.value, depth + 1, inner);
  return descriptor.get === undefined ? '[Setter]' : descriptor.set === undefined ? '[Getter]' : '[Getter/Setter]';
}

function formatError(error: object, depth: number): string {
  const stack = readString(error, 'stack');
  if (depth === 0 && stack !== undefined) return stack;
  const name = readString(error, 'name') ?? 'Error';
  const message = readString(error, 'message') ?? '';
  return depth === 0 ? (message === '' ? name : name + ': ' + message) : '[' + name + (message === '' ? '' : ': ' + message) + ']';
}

/** An own or inherited data property that is a string; accessors other than V8's own `stack` are not called. */
export function readString(target: object, key: string): string | undefined {
  for (let o: object | null = target; o !== null; o = getPrototypeOf(o)) {
    const descriptor = getOwnPropertyDescriptor(o, key);
    if (descriptor === undefined) continue;
    const get = hasOwn(descriptor, 'get') ? descriptor.get : undefined;
    const value: unknown = get === undefined ? descriptor.value : key === 'stack' ? applyFunction(get, target, []) : undefined;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function formatFunction(fn: object): string {
  try {
    const nameDescriptor = getOwnPropertyDescriptor(fn, 'name');
    const name = nameDescriptor !== undefined && typeof nameDescriptor.value === 'string' ? nameDescriptor.value : '';
    if (stringSlice(functionToString(fn), 0, 5) === 'class') return '[class ' + (name === '' ? '(anonymous)' : name) + ']';
    return '[Function: ' + (name === '' ? '(anonymous)' : name) + ']';
  } catch {
    return '[Function]';
  }
}

function constructorPrefix(value: object): string {
  const proto = getPrototypeOf(value);
  if (proto === null) return '[Object: null prototype]';
  const ctor = getOwnPropertyDescriptor(proto, 'constructor');
  if (ctor === undefined || typeof ctor.value !== 'function') return '';
  const name = getOwnPropertyDescriptor(ctor.value as (...args: never[]) => unknown, 'name');
  const text = name !== undefined && typeof name.value === 'string' ? name.value : '';
  return text === 'Object' ? '' : text;
}

function more(body: string, total: number): string {
  if (body === '') return '';
  return body + (total > MAX_ITEMS ? ', ... ' + (total - MAX_ITEMS) + ' more items' : '') + ' ';
}

function quote(text: string): string {
  return JsonStringify(text) as string;
}

function isIdentifier(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = stringCharCodeAt(key, i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}
