import { describeType, StdError } from './errors.js';

/** Options of {@link stringify}. */
interface JsonStringifyOptions {
  /** Spaces (or a string) to indent nested levels with; compact when absent. */
  indent?: number | string;
  /** Write object keys in sorted order (stable output for hashing and diffs). */
  sortKeys?: boolean;
}

type Reviver = (this: unknown, key: string, value: unknown) => unknown;

/**
 * Parses JSON text. Invalid text throws a `StdError` with code `INVALID_JSON` whose message names the line, column and
 * problem and shows the line with a caret; `data` holds `{ line, column, offset }`.
 */
export function parse<T = unknown>(text: string, reviver?: Reviver): T {
  if (typeof text !== 'string') {
    throw new StdError('INVALID_ARGUMENT', `json.parse expects a string, got ${describeType(text)}`);
  }
  try {
    return JSON.parse(text, reviver) as T;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const found = findJsonError(text) ?? { offset: 0, problem: error.message };
    const { line, column, excerpt } = locate(text, found.offset);
    throw new StdError('INVALID_JSON', `Invalid JSON at line ${line}, column ${column}: ${found.problem}\n${excerpt}`, {
      line,
      column,
      offset: found.offset,
    });
  }
}

/**
 * Serializes a value as JSON. Values JSON cannot hold (a top-level `undefined`, a function, a symbol) and failures
 * (a circular structure, a BigInt) throw a `StdError` with code `INVALID_ARGUMENT`.
 */
function stringify(value: unknown, options: JsonStringifyOptions = {}): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, options.sortKeys ? sortKeys : undefined, options.indent);
  } catch (error) {
    throw new StdError('INVALID_ARGUMENT', `json.stringify failed: ${(error as Error).message}`);
  }
  if (text === undefined) throw new StdError('INVALID_ARGUMENT', `json.stringify cannot represent ${describeType(value)} as JSON`);
  return text;
}

function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/** Parsing as JSON: JSON, with `json.parse` and `json.stringify` giving errors that say where. */
export const json = Object.freeze({ parse, stringify });

class Found {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ['true', 'false', 'null'];

/** Scans text `JSON.parse` refused and returns where and why, in words a person can act on. */
function findJsonError(text: string): Found | undefined {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (error) {
    if (error instanceof Found) return error;
    return undefined; // e.g. nesting too deep for this scanner: fall back to the engine's message
  }
}

/** Walks JSON text from its start; throws a {@link Found} at the first thing that is not JSON. */
class JsonScanner {
  private i = 0;

  constructor(private readonly text: string) {}

  /** Scans one value and the space after it, which must end the text. */
  document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) this.fail('unexpected text after the JSON value');
  }

  private fail(problem: string): never {
    throw new Found(this.i, problem);
  }

  private space(): void {
    const { text } = this;
    while (this.i < text.length && (text[this.i] === ' ' || text[this.i] === '\t' || text[this.i] === '\n' || text[this.i] === '\r')) this.i++;
  }

  private string(): void {
    const { text } = this;
    this.i++;
    for (;;) {
      const c = text[this.i];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') return void this.i++;
      if (c === '\\') {
        const next = text[this.i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6))) this.fail('invalid \\u escape (needs 4 hex digits)');
          this.i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) this.i += 2;
        else this.fail(`invalid escape \\${next ?? ''}`);
      } else if (c! < ' ') this.fail('control character in string (escape it, e.g. \\n)');
      else this.i++;
    }
  }

  private value(): void {
    const { text } = this;
    this.space();
    const c = text[this.i];
    if (c === undefined) return this.fail('unexpected end of input, expected a value');
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    NUMBER.lastIndex = this.i;
    if (NUMBER.test(text)) return void (this.i = NUMBER.lastIndex);
    const literal = LITERALS.find((word) => text.startsWith(word, this.i));
    if (literal) return void (this.i += literal.length);
    if (c === "'") return this.fail('strings need double quotes');
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }

  private object(): void {
    const { text } = this;
    this.i++;
    this.space();
    if (text[this.i] === '}') return void this.i++;
    for (;;) {
      this.space();
      if (text[this.i] === '}') this.fail("trailing comma before '}'");
      if (text[this.i] !== '"') this.fail('expected a property name in double quotes');
      this.string();
      this.space();
      if (text[this.i] !== ':') this.fail("expected ':' after the property name");
      this.i++;
      this.value();
      this.space();
      if (text[this.i] === '}') return void this.i++;
      if (text[this.i] !== ',') this.fail("expected ',' or '}' after a property value");
      this.i++;
    }
  }

  private array(): void {
    const { text } = this;
    this.i++;
    this.space();
    if (text[this.i] === ']') return void this.i++;
    for (;;) {
      this.space();
      if (text[this.i] === ']') this.fail("trailing comma before ']'");
      this.value();
      this.space();
      if (text[this.i] === ']') return void this.i++;
      if (text[this.i] !== ',') this.fail("expected ',' or ']' after an array element");
      this.i++;
    }
  }
}

function locate(text: string, offset: number): { line: number; column: number; excerpt: string } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = text.indexOf('\n', offset);
  const column = offset - lineStart + 1;
  const from = Math.max(lineStart, offset - 40);
  const source = text.slice(from, Math.min(lineEnd === -1 ? text.length : lineEnd, offset + 40)).replace(/\r$/, '');
  return { line, column, excerpt: `  ${source}\n  ${' '.repeat(offset - from)}^` };
}
