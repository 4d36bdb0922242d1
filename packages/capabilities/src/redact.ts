/**
 * Redaction of secret values, in every form a value can take on its way back: raw, JSON-escaped (at any depth, with
 * `\uXXXX` escapes), URL-encoded, base64 (standard and url-safe, at any alignment inside a longer base64 text) and as
 * bytes in binary values. The one matcher of the project: the bridge redacts call outcomes, run events and the audit
 * log with it, the mcp package the messages of servers that fail to start.
 */
import { isPlainObject } from './shape.js';

/**
 * Values shorter than this are not redacted: replacing `1`, `true` or `prod` everywhere would garble every result
 * (`within [REDACTED]0000 ms`) while hiding nothing a guess would not find.
 */
export const MIN_SECRET_LENGTH = 6;

/** Replaces secret values with `[REDACTED:VAR]`. */
export interface Redactor {
  /** Names of the variables whose values are redacted (those at least {@link MIN_SECRET_LENGTH} long). */
  readonly names: readonly string[];
  /** `text` with every form of every secret replaced. */
  text(text: string): string;
  /**
   * A copy of `value` with every secret replaced in its strings (object keys included) and binary data (`Buffer`,
   * typed arrays, `DataView`, `ArrayBuffer`), through arrays, plain objects, `Map`s, `Set`s and errors; other values
   * as they are. Returns `value` itself when it holds no secret.
   */
  value<T>(value: T): T;
}

/**
 * A redactor for the given `name → value` secrets (a `Map`, or pairs where one name may have several values); values shorter than {@link MIN_SECRET_LENGTH} are skipped. All
 * secrets are compiled into one regular expression for text and one for bytes; longer values come first, so a secret
 * containing another is replaced whole.
 * @example
 * createRedactor(new Map([['API_TOKEN', 'tok-123456']])).text('Bearer tok-123456') // 'Bearer [REDACTED:API_TOKEN]'
 * createRedactor(new Map([['PW', 'a"b\\c-d']])).text('{"pw":"a\\"b\\\\c-d"}') // '{"pw":"[REDACTED:PW]"}'
 */
export function createRedactor(secrets: Iterable<readonly [name: string, value: string]>): Redactor {
  const byValue = new Map<string, string>();
  for (const [name, value] of secrets) if (value.length >= MIN_SECRET_LENGTH && !byValue.has(value)) byValue.set(value, name);
  const names = [...new Set(byValue.values())].sort();
  if (byValue.size === 0) return { names, text: (text) => text, value: (value) => value };
  const ordered = [...byValue].sort(([a], [b]) => b.length - a.length);
  // Every form of a secret is at least as long as the secret: shorter strings need no look.
  const shortest = ordered.at(-1)![0].length;
  const text = matcher(ordered.map(([value]) => textForms(value)), ordered.map(([, name]) => `[REDACTED:${name}]`), shortest);
  const bytes = matcher(ordered.map(([value]) => byteForms(value)), ordered.map(([, name]) => latin1(utf8(`[REDACTED:${name}]`))), shortest);
  const walker: Walker = { text, bytes };
  // Most values hold no secret: look first (no allocation), copy only when something must change.
  const value = <T>(input: T): T => (holdsSecret(input, walker, new Set()) ? redactValue(input, walker, new Map()) : input);
  return { names, text: text.replace, value };
}

/** A {@link Redactor} that learns secrets while in use: {@link createGrowingRedactor}. */
export interface GrowingRedactor extends Redactor {
  /** Redacts `value` as `[REDACTED:<name>]` from now on (a value already known is kept under its first name). */
  add(name: string, value: string): void;
}

/**
 * A redactor of `initial` that also redacts each value {@link GrowingRedactor.add} hands it (per-user secrets,
 * resolved at call time). It keeps the `limit` most recently added values (default 1024) besides `initial`; the
 * matcher is compiled again only when a new value arrives.
 */
export function createGrowingRedactor(initial: ReadonlyMap<string, string>, limit = 1024): GrowingRedactor {
  const added = new Map<string, string>();
  let current = createRedactor(initial);
  return {
    get names() {
      return current.names;
    },
    text: (text) => current.text(text),
    value: (value) => current.value(value),
    add(name, value) {
      if (value.length < MIN_SECRET_LENGTH) return;
      const known = added.get(value);
      added.delete(value);
      added.set(value, known ?? name);
      if (known !== undefined) return;
      if (added.size > limit) added.delete(added.keys().next().value!);
      current = createRedactor([...initial, ...[...added].map(([secret, secretName]) => [secretName, secret] as const)]);
    },
  };
}

/** One compiled alternation of every secret's forms, each secret in its own capture group. */
interface Matcher {
  test(text: string): boolean;
  replace(text: string): string;
}

function matcher(forms: string[][], markers: string[], shortest: number): Matcher {
  const source = forms.map((alternatives) => `(${alternatives.join('|')})`).join('|');
  const global = new RegExp(source, 'g');
  const probe = new RegExp(source);
  const replacement = (...groups: unknown[]): string => {
    for (let index = 0; index < markers.length; index++) if (groups[index + 1] !== undefined) return markers[index]!;
    return '';
  };
  return { test: (text) => text.length >= shortest && probe.test(text), replace: (text) => text.replace(global, replacement) };
}

/** Regular expression sources of the forms `secret` takes in text. */
function textForms(secret: string): string[] {
  return [escapedForm(secret, (char) => escapeRegExp(char)), ...base64Forms(utf8(secret))];
}

/** Regular expression sources, over bytes read as latin1, of the forms `secret` takes in binary data. */
function byteForms(secret: string): string[] {
  const utf16 = new Uint8Array(secret.length * 2);
  for (let i = 0; i < secret.length; i++) [utf16[2 * i], utf16[2 * i + 1]] = [secret.charCodeAt(i) & 0xff, secret.charCodeAt(i) >> 8];
  return [escapedForm(secret, (char) => escapeRegExp(latin1(utf8(char)))), escapeRegExp(latin1(utf16)), ...base64Forms(utf8(secret))];
}

/**
 * One pattern for the raw, JSON-escaped and URL-encoded forms (mixed, too): letters and digits stand for themselves;
 * every other character may also appear as a JSON escape behind any number of backslashes (`\"`, `\\\"`, `\n`,
 * `\u00e9`) or percent-encoded (`%22`, `%C3%A9`, `+` for a space).
 */
function escapedForm(secret: string, raw: (char: string) => string): string {
  let source = '';
  for (const char of secret) {
    if (/[A-Za-z0-9]/.test(char)) {
      source += char;
      continue;
    }
    // Encoded forms first: the longest match wins where a raw character could also start an encoding (`%25`).
    const forms = [`\\\\+${unicodeEscapes(char)}`, utf8(char).reduce((out, byte) => out + `%${hexPattern(byte, 2)}`, '')];
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) forms.push(`\\\\+${escapeRegExp(short)}`);
    if (char === '"' || char === '/') forms.push(`\\\\+${escapeRegExp(char)}`);
    if (char === ' ') forms.push('\\+');
    forms.push(raw(char));
    source += `(?:${forms.join('|')})`;
  }
  return source;
}

/** JSON's two-character escapes. */
const SHORT_ESCAPES: Record<string, string> = { '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

/** `\uXXXX` (as a pattern, hex in either case) of each UTF-16 unit of `char`, after the backslashes. */
function unicodeEscapes(char: string): string {
  let source = '';
  for (let i = 0; i < char.length; i++) source += `${i > 0 ? '\\\\+' : ''}u${hexPattern(char.charCodeAt(i), 4)}`;
  return source;
}

/** A pattern for `value` in hexadecimal, `digits` long, letters in either case (`2[fF]`). */
function hexPattern(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

/**
 * The base64 text of `bytes` wherever they start in a longer base64 text: for each of the three alignments, the
 * characters that depend on `bytes` alone; standard and url-safe alphabets.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = btoa(latin1(padded));
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    forms.add(core);
    forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms].map(escapeRegExp);
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Bytes as a string of one character per byte (what the byte matcher runs on). */
function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 4096) text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

interface Walker {
  text: Matcher;
  bytes: Matcher;
}

type Binary = ArrayBuffer | ArrayBufferView;

function isBinary(value: object): value is Binary {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer;
}

function bytesOf(value: Binary): Uint8Array {
  return value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * A copy of `value` with the secrets in its bytes replaced by `[REDACTED:VAR]`, of the same type (a view on a new
 * buffer; a multi-byte element type is padded with spaces to whole elements).
 */
function redactBinary(value: Binary, walker: Walker): Binary {
  const text = walker.bytes.replace(latin1(bytesOf(value)));
  const size = value instanceof ArrayBuffer || value instanceof DataView ? 1 : (value as Uint16Array).BYTES_PER_ELEMENT;
  const buffer = new ArrayBuffer(Math.ceil(text.length / size) * size);
  const bytes = new Uint8Array(buffer).fill(0x20);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  if (value instanceof ArrayBuffer) return buffer;
  if (value instanceof DataView) return new DataView(buffer);
  if (typeof Buffer !== 'undefined' && Buffer.isBuffer(value)) return Buffer.from(buffer);
  const View = value.constructor as new (buffer: ArrayBuffer) => ArrayBufferView;
  return new View(buffer);
}

function holdsSecret(value: unknown, walker: Walker, seen: Set<object>): boolean {
  if (typeof value === 'string') return walker.text.test(value);
  if (typeof value !== 'object' || value === null || seen.has(value)) return false;
  seen.add(value);
  if (isBinary(value)) return walker.bytes.test(latin1(bytesOf(value)));
  if (value instanceof Map) {
    for (const [key, item] of value) if (holdsSecret(key, walker, seen) || holdsSecret(item, walker, seen)) return true;
    return false;
  }
  if (value instanceof Set) {
    for (const item of value) if (holdsSecret(item, walker, seen)) return true;
    return false;
  }
  if (value instanceof Error && (walker.text.test(value.message) || walker.text.test(value.stack ?? ''))) return true;
  for (const [key, item] of Object.entries(value)) if (walker.text.test(key) || holdsSecret(item, walker, seen)) return true;
  return false;
}

function redactValue<T>(value: T, walker: Walker, seen: Map<object, unknown>): T {
  if (typeof value === 'string') return walker.text.replace(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done as T;
  const again = <V>(item: V): V => redactValue(item, walker, seen);
  if (isBinary(value)) {
    const copy = redactBinary(value, walker);
    seen.set(value, copy);
    return copy as T;
  }
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
    const copy = new Error(walker.text.replace(value.message));
    seen.set(value, copy);
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : walker.text.replace(value.stack);
    for (const [key, item] of Object.entries(value)) (copy as unknown as Record<string, unknown>)[key] = again(item);
    return copy as T;
  }
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, walker.text.replace(key), { value: again(item), enumerable: true, writable: true, configurable: true });
  }
  return copy as T;
}
