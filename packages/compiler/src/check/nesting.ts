import type { TypecheckDiagnostic } from './types.js';

/** Code of the diagnostic for code that nests deeper than the typechecker's stack allows. */
export const TOO_DEEP_CODE = 100_002;

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

/**
 * The diagnostic for `code` whose parse or check overflowed the typechecker's stack: at the place where its brackets
 * nest deepest (line 1 when it has none), so the agent sees where to flatten it.
 */
export function tooDeepDiagnostic(code: string): TypecheckDiagnostic {
  const lines = code.split(LINE_BREAK);
  const { depth, offset } = deepestNesting(code);
  if (depth < FEW_BRACKETS) {
    // Nesting without brackets (`!!!…x`, `() => () => …`): the longest line holds it.
    const longest = lines.reduce((best, line, i) => (line.length > lines[best]!.length ? i : best), 0);
    return tooDeep('here', longest + 1, 1);
  }
  const before = code.slice(0, offset).split(LINE_BREAK);
  return tooDeep(`${depth} levels of brackets here`, before.length, before.at(-1)!.length + 1);
}

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;
/** Fewer brackets than this deep cannot be what overflowed the stack. */
const FEW_BRACKETS = 64;

function tooDeep(where: string, line: number, column: number): TypecheckDiagnostic {
  const message = `The code nests too deeply to be checked (${where}): flatten it, e.g. name intermediate values.`;
  return { code: TOO_DEEP_CODE, category: 'error', message, line, column };
}

/**
 * The deepest bracket nesting of `code` and the offset where it is first reached; strings, template text and
 * comments are skipped (a regular expression literal is read as code, which only moves the place reported).
 */
function deepestNesting(code: string): { depth: number; offset: number } {
  let depth = 0;
  let deepest = { depth: 0, offset: 0 };
  for (let i = 0; i < code.length; i++) {
    const char = code[i]!;
    if (char === '/' && code[i + 1] === '/') i = endOf(code, '\n', i + 2);
    else if (char === '/' && code[i + 1] === '*') i = endOf(code, '*/', i + 2) + 1;
    else if (char === '"' || char === "'" || char === '`') i = stringEnd(code, i);
    else if (OPENERS.has(char) && ++depth > deepest.depth) deepest = { depth, offset: i };
    else if (CLOSERS.has(char)) depth = Math.max(0, depth - 1);
  }
  return deepest;
}

/** The offset of `marker` at or after `from` (the end of `code` when there is none). */
function endOf(code: string, marker: string, from: number): number {
  const at = code.indexOf(marker, from);
  return at === -1 ? code.length : at;
}

/** The offset of the quote that ends the string starting at `start` (template substitutions are skipped whole). */
function stringEnd(code: string, start: number): number {
  const quote = code[start];
  for (let i = start + 1; i < code.length; i++) {
    if (code[i] === '\\') i++;
    else if (code[i] === quote) return i;
    else if (quote !== '`' && code[i] === '\n') return i;
  }
  return code.length;
}
