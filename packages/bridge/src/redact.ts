import { envValue, isPlainObject, placeholdersIn, type PlaceholderEnv } from '@agent-spaces/capabilities';

/** Values shorter than this are not redacted: replacing `1` or `on` everywhere would garble every result. */
const MIN_SECRET_LENGTH = 4;

/** Replaces secret values with `[REDACTED:VAR]`. */
export interface Redactor {
  /** Names of the variables whose values are redacted. */
  readonly names: readonly string[];
  /** `text` with every secret value replaced. */
  text(text: string): string;
  /**
   * A copy of `value` with every secret replaced in its strings (object keys included), through arrays, plain objects,
   * `Map`s, `Set`s and errors; other values as they are. Returns `value` itself when it holds no secret.
   */
  value<T>(value: T): T;
}

/**
 * A redactor for the given `name → value` secrets (values shorter than 4 characters are skipped). Longer values are
 * replaced first, so a secret containing another is replaced whole.
 * @example
 * createRedactor(new Map([['API_TOKEN', 'tok-123456']])).text('Bearer tok-123456') // 'Bearer [REDACTED:API_TOKEN]'
 */
export function createRedactor(secrets: ReadonlyMap<string, string>): Redactor {
  const byValue = new Map<string, string>();
  for (const [name, value] of secrets) if (value.length >= MIN_SECRET_LENGTH && !byValue.has(value)) byValue.set(value, name);
  const names = [...new Set(byValue.values())].sort();
  if (byValue.size === 0) return { names, text: (text) => text, value: (value) => value };
  const source = [...byValue.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  const pattern = new RegExp(source, 'g');
  const probe = new RegExp(source);
  const text = (input: string) => input.replace(pattern, (found) => `[REDACTED:${byValue.get(found)}]`);
  // Most values hold no secret: look first (no allocation), copy only when something must change.
  const value = <T>(input: T): T => (holdsSecret(input, probe, new Set()) ? redactValue(input, text, new Map()) : input);
  return { names, text, value };
}

/** `name → value` of the variables among `names` that are set in `env` (default `process.env`). */
export function secretsFromEnv(names: Iterable<string>, env: PlaceholderEnv = process.env): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of names) {
    const value = envValue(env, name);
    if (value !== undefined) found.set(name, value);
  }
  return found;
}

/** Names of the `${VAR}` / `${VAR:-default}` placeholders in every string of `value` (objects and arrays searched deeply). */
export function placeholderNames(value: unknown): string[] {
  const names = new Set<string>();
  const visit = (item: unknown, depth: number): void => {
    if (depth > 32) return;
    if (typeof item === 'string') {
      for (const name of placeholdersIn(item)) names.add(name);
    } else if (Array.isArray(item)) {
      for (const element of item) visit(element, depth + 1);
    } else if (typeof item === 'object' && item !== null) {
      for (const element of Object.values(item)) visit(element, depth + 1);
    }
  };
  visit(value, 0);
  return [...names].sort();
}

function holdsSecret(value: unknown, probe: RegExp, seen: Set<object>): boolean {
  if (typeof value === 'string') return probe.test(value);
  if (typeof value !== 'object' || value === null || seen.has(value)) return false;
  seen.add(value);
  if (value instanceof Map) {
    for (const [key, item] of value) if (holdsSecret(key, probe, seen) || holdsSecret(item, probe, seen)) return true;
    return false;
  }
  if (value instanceof Set) {
    for (const item of value) if (holdsSecret(item, probe, seen)) return true;
    return false;
  }
  if (value instanceof Error && (probe.test(value.message) || probe.test(value.stack ?? ''))) return true;
  for (const [key, item] of Object.entries(value)) if (probe.test(key) || holdsSecret(item, probe, seen)) return true;
  return false;
}

function redactValue<T>(value: T, text: (input: string) => string, seen: Map<object, unknown>): T {
  if (typeof value === 'string') return text(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done as T;
  const again = <V>(item: V): V => redactValue(item, text, seen);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(again(item));
    return copy as T;
  }
  if (value instanceof Map) {
    const copy = new Map();
    seen.set(value, copy);
    for (const [key, item] of value) copy.set(again(key), again(item));
    return copy as T;
  }
  if (value instanceof Set) {
    const copy = new Set();
    seen.set(value, copy);
    for (const item of value) copy.add(again(item));
    return copy as T;
  }
  if (value instanceof Error) {
    const copy = new Error(text(value.message));
    seen.set(value, copy);
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : text(value.stack);
    for (const [key, item] of Object.entries(value)) (copy as unknown as Record<string, unknown>)[key] = again(item);
    return copy as T;
  }
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, text(key), { value: again(item), enumerable: true, writable: true, configurable: true });
  }
  return copy as T;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
