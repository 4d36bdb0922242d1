import { AgentSpacesError } from './errors.js';
import { HIDDEN_BEYOND_C0 } from './visible-text.js';

/** Characters JSON writes raw that a terminal acts on or that hide text (JSON escapes C0 controls itself). */
const RAW_HIDDEN = new RegExp(`[${HIDDEN_BEYOND_C0}]`, 'g');

/**
 * JSON text of a value a run hands back (structured-clone data), keeping what `JSON.stringify` would lose or fail on:
 * a `Map` becomes `{ "$map": [[key, value], …] }`, a `Set` `{ "$set": […] }`, a bigint its decimal string, a typed
 * array a plain array, `undefined` `null`. An object met again is written once: a reference back to an object that
 * contains it (a cycle) as `{ "$circular": "<JSON pointer of that object>" }` (`""` is the value itself), any other as
 * `{ "$repeat": "<JSON pointer where it was written>" }` (so a value sharing its parts cannot grow exponentially).
 * Characters that can act on a terminal or hide text are written as `\u` escapes: the same JSON, safe to print.
 * @example
 * const a: Record<string, unknown> = { n: 1n }; a.self = a;
 * jsonText(a) // '{"n":"1","self":{"$circular":""}}'
 */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(toJsonData(value, { open: new Set(), written: new Map() }, ''), null, indent) ?? 'null';
  return text.replace(RAW_HIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The objects being written (`open`) and every object written so far, by JSON pointer. */
interface Walk {
  open: Set<object>;
  written: Map<object, string>;
}

/** `value` as data `JSON.stringify` writes whole, found at `pointer`. */
function toJsonData(value: unknown, walk: Walk, pointer: string): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  const seen = walk.written.get(value);
  if (seen !== undefined) return walk.open.has(value) ? { $circular: seen } : { $repeat: seen };
  walk.written.set(value, pointer);
  walk.open.add(value);
  const child = (item: unknown, ...path: (string | number)[]): unknown =>
    toJsonData(item, walk, pointer + path.map((key) => `/${escapePointer(String(key))}`).join(''));
  try {
    if (value instanceof Map) return { $map: [...value].map(([k, v], i) => [child(k, '$map', i, 0), child(v, '$map', i, 1)]) };
    if (value instanceof Set) return { $set: [...value].map((item, i) => child(item, '$set', i)) };
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number | bigint>, (n) => child(n));
    if (Array.isArray(value)) return value.map((item, i) => child(item, i));
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(value)) object[key] = child((value as Record<string, unknown>)[key], key);
    return object;
  } finally {
    walk.open.delete(value);
  }
}

/**
 * The first part of `params` that JSON cannot carry as it is (a bigint, a `Map`, a `Set`, a typed array, `NaN` or an
 * infinity), as a JSON pointer and a phrase, or undefined when JSON carries it whole. Executors that send params as
 * JSON (HTTP, OpenAPI, MCP) refuse such params with `INVALID_PARAMS` instead of failing, or sending something else.
 * @example
 * jsonProblem({ id: 7n }) // { path: '/id', message: 'is a bigint, which JSON cannot carry' }
 */
export function jsonProblem(params: unknown): { path: string; message: string } | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: params, path: '' }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    const problem = unsendable(value);
    if (problem) return { path, message: `is ${problem}, which JSON cannot carry` };
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    for (const key of Object.keys(value)) {
      stack.push({ value: (value as Record<string, unknown>)[key], path: `${path}/${escapePointer(key)}` });
    }
  }
  return undefined;
}

/**
 * Throws `INVALID_PARAMS` naming the field when `params` hold what JSON cannot carry ({@link jsonProblem}), for
 * executors that send params as JSON; `what` names the function (`crm.createTicket`).
 * @example
 * checkJsonParams({ id: 7n }, 'crm.get') // INVALID_PARAMS: Invalid params for crm.get: params/id is a bigint, which JSON cannot carry
 */
export function checkJsonParams(params: unknown, what: string): void {
  const problem = jsonProblem(params);
  if (problem) {
    throw new AgentSpacesError('INVALID_PARAMS', `Invalid params for ${what}: params${problem.path} ${problem.message}`, {
      errors: [problem],
    });
  }
}

/**
 * One segment of a JSON pointer (RFC 6901): `~` written `~0`, `/` written `~1`.
 * @example
 * `/properties/${escapePointer('a/b')}` // '/properties/a~1b'
 */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unsendable(value: unknown): string | undefined {
  if (typeof value === 'bigint') return 'a bigint';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value instanceof Map) return 'a Map';
  if (value instanceof Set) return 'a Set';
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 'binary data';
  return undefined;
}
