/**
 * The size budget of every type-error text the model reads, in one place: a diagnostic's message, the signatures
 * of its hint and the source line shown under it. What a budget cuts stays whole in the diagnostic's `detail`.
 */
import type { TypecheckDiagnostic } from './types.js';

/** Most characters of a type error's hint: the signatures it shows, together. */
export const HINT_BUDGET = 600;
/** Most characters of a type error's message (TypeScript's elaboration chain, its first and last lines kept). */
export const MESSAGE_BUDGET = 400;
/** Most characters of the source line shown under a diagnostic, around its column. */
export const SOURCE_BUDGET = 120;

const ELLIPSIS = '…';

/**
 * The first of `candidates` (most detailed first) that fits `budget`, else the last one cut to it. Each candidate
 * is also tried with its inline object types abbreviated, deepest first (`{ a: { b: string } }` → `{ a: { … } }`),
 * so a declared name (`Promise<Customer[]>`) is never lost to the abbreviation.
 */
export function fitSignature(candidates: readonly string[], budget: number): string {
  for (const candidate of candidates) {
    const deepest = maxDepth(candidate);
    if (candidate.length <= budget) return candidate;
    for (let depth = deepest - 1; depth >= 1; depth--) {
      const abbreviated = abbreviateObjects(candidate, depth);
      if (abbreviated.length <= budget) return abbreviated;
    }
  }
  return cut(abbreviateObjects(candidates.at(-1) ?? '', 1), budget);
}

/** `diagnostic` with its message within {@link MESSAGE_BUDGET}; a cut message stays whole in `detail.message`. */
export function fitDiagnostic(diagnostic: TypecheckDiagnostic): TypecheckDiagnostic {
  const message = fitMessage(diagnostic.message);
  if (message === diagnostic.message) return diagnostic;
  return { ...diagnostic, message, detail: { ...diagnostic.detail, message: diagnostic.message } };
}

/** A diagnostic message within {@link MESSAGE_BUDGET}: its first line and its last (most specific) line, each cut. */
function fitMessage(message: string): string {
  if (message.length <= MESSAGE_BUDGET) return message;
  const lines = message.split('\n');
  const half = Math.floor(MESSAGE_BUDGET / 2);
  if (lines.length === 1) return cut(message, MESSAGE_BUDGET);
  const last = lines.at(-1)!.trim();
  return `${cut(lines[0]!, half)}\n  ${ELLIPSIS}\n  ${cut(last, half)}`;
}

/**
 * The part of `line` shown under a diagnostic at 1-based `column`: all of it when it fits {@link SOURCE_BUDGET},
 * else a window around the column with `…` where it was cut; `column` is where the caret goes in the window.
 */
export function fitSourceLine(line: string, column: number): { text: string; column: number } {
  if (line.length <= SOURCE_BUDGET) return { text: line, column };
  const start = Math.max(0, Math.min(column - 1 - Math.floor(SOURCE_BUDGET / 3), line.length - SOURCE_BUDGET));
  const end = start + SOURCE_BUDGET;
  const head = start > 0 ? ELLIPSIS : '';
  const text = `${head}${line.slice(start, end)}${end < line.length ? ELLIPSIS : ''}`;
  return { text, column: column - start + head.length };
}

/** `text` cut to `budget` characters, ending in `…` when cut. */
function cut(text: string, budget: number): string {
  return text.length <= budget ? text : `${text.slice(0, Math.max(0, budget - 1))}${ELLIPSIS}`;
}

/** The deepest nesting of `{ }` in `text`, outside quoted literals. */
function maxDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  forEachCode(text, (char) => {
    if (char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === '}') depth--;
  });
  return deepest;
}

/** `text` with every `{ … }` nested deeper than `depth` written as `{ … }` (quoted literals are left as they are). */
export function abbreviateObjects(text: string, depth: number): string {
  let out = '';
  let level = 0;
  forEachCode(text, (char, literal) => {
    if (literal === undefined && char === '{') {
      level++;
      if (level === depth + 1) out += `{ ${ELLIPSIS} }`;
      if (level <= depth) out += char;
      return;
    }
    if (literal === undefined && char === '}') {
      level--;
      if (level < depth) out += char;
      return;
    }
    if (level <= depth) out += literal ?? char;
  });
  return out;
}

/** Calls `visit` for each character of `text` outside quotes, and once with the whole text of each quoted literal. */
function forEachCode(text: string, visit: (char: string, literal?: string) => void): void {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char !== '"' && char !== "'" && char !== '`') {
      visit(char);
      continue;
    }
    let end = i + 1;
    while (end < text.length && text[end] !== char) end += text[end] === '\\' ? 2 : 1;
    visit(char, text.slice(i, end + 1));
    i = end;
  }
}
