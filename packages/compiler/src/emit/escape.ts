/**
 * The one place generated code turns outside text into source text: string literals, property keys, literal
 * types and JSDoc comments. Everything else the emitters print is an identifier from `ir/names.ts` or fixed syntax.
 */
import { isIdentifierName } from '../ir/names.js';

/** A double-quoted JS/TS string literal for any string (quotes, backslashes, control characters escaped). */
export function stringLiteral(value: string): string {
  return JSON.stringify(value);
}

/** A property name as written in an object type: `station`, `default`, or quoted: `"x-api-key"`. */
export function propertyKey(name: string): string {
  return isIdentifierName(name) ? name : stringLiteral(name);
}

/**
 * The TypeScript literal type of a JSON value: `"a"`, `42`, `true`, `null`, `{ "k": 1 }`, `[1, 2]`.
 * Values JSON cannot hold (NaN, functions) become `unknown`.
 */
export function literalType(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return stringLiteral(value);
    case 'boolean':
      return String(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'unknown';
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(literalType).join(', ')}]`;
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return 'Record<string, never>';
      return `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${literalType(v)}`).join('; ')} }`;
    }
    default:
      return 'unknown';
  }
}

/** Text safe inside a block comment: `*\/` cannot end it early, and line breaks are normalized to `\n`. */
function commentText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\*\//g, '*\\/');
}

/**
 * The lines inside a JSDoc block made of `lines` of text (each may hold line breaks): comment-safe, without trailing
 * spaces or leading and trailing empty lines.
 */
export function docBody(lines: readonly string[]): string[] {
  const body = lines
    .flatMap((line) => commentText(line).split('\n'))
    .map((line) => line.trimEnd());
  while (body.length > 0 && body[body.length - 1] === '') body.pop();
  while (body.length > 0 && body[0] === '') body.shift();
  return body;
}

/**
 * A JSDoc block at `indent` from lines of text (each may hold line breaks); '' when there is nothing to say.
 * One line gives `/** text *\/`, more give the multi-line form.
 */
export function jsDoc(lines: readonly string[], indent: string): string {
  const body = docBody(lines);
  if (body.length === 0) return '';
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`;
  return `${indent}/**\n${body.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)).join('\n')}\n${indent} */\n`;
}
