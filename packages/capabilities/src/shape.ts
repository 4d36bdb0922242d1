/** Shape checks of untrusted values, shared by every package that reads config, definitions or wire data. */

/** True for an object that is not `null` and not an array (a class instance counts: see {@link isPlainObject}). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for an object literal or `Object.create(null)`: its prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
