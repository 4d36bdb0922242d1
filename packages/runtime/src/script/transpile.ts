import { createRequire } from 'node:module';
import type { Message, TransformOptions } from 'esbuild';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { assemble, RETURN_MARKER, type TranspiledScript } from './assemble.js';
import { Lru } from './lru.js';

// Loaded with require: importing a CommonJS package from ESM starts Node's CJS export lexer (~7 MiB of RSS).
const { transform, transformSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');

export type { TranspiledScript } from './assemble.js';

const ESBUILD_OPTIONS: TransformOptions = { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: 'agent.ts' };
/** Appended so esbuild always treats agent code as a module (it would wrap a script with `return` as CommonJS). */
const FORCE_MODULE = '\nexport {};';
const TOP_LEVEL_RETURN = 'Top-level return cannot be used inside an ECMAScript module';

const cache = new Lru<string, TranspiledScript | AgentSpacesError>(128);

/**
 * Turns agent TypeScript (imports, annotations, interfaces, generics, enums, top-level `await`, and either
 * `export default <expr>` or a top-level `return <expr>`) into one ES module whose default export is
 * `async function __main__(register)`: the imports stay on top, the rest becomes the function's body and its result
 * is the default export or the returned value. Results are cached per code string.
 * Throws `SYNTAX_ERROR` (with 1-based `line` and `column` in the agent's code) or `IMPORT_NOT_FOUND` (dynamic `import()`).
 * Uses esbuild's synchronous API (a worker thread on first use); the sandbox itself uses {@link transpileAsync}.
 */
export function transpile(code: string): TranspiledScript {
  return cached(code, () => {
    const first = plan(code, tryTransform(() => transformSync(code + FORCE_MODULE, ESBUILD_OPTIONS).code));
    if ('script' in first) return first.script;
    return finish(code, first, tryTransform(() => transformSync(first.marked + FORCE_MODULE, ESBUILD_OPTIONS).code));
  });
}

/** {@link transpile} through esbuild's asynchronous service (a child process: no worker thread in this process). */
export async function transpileAsync(code: string): Promise<TranspiledScript> {
  const hit = cache.get(code);
  if (hit !== undefined) return unwrap(hit);
  const first = await tryTransformAsync(code + FORCE_MODULE);
  let entry: TranspiledScript | AgentSpacesError;
  try {
    const planned = plan(code, first);
    entry = 'script' in planned ? planned.script : finish(code, planned, await tryTransformAsync(planned.marked + FORCE_MODULE));
  } catch (error) {
    if (!(error instanceof AgentSpacesError)) throw error;
    entry = error;
  }
  cache.set(code, entry);
  return unwrap(entry);
}

function cached(code: string, compile: () => TranspiledScript): TranspiledScript {
  let entry = cache.get(code);
  if (entry === undefined) {
    try {
      entry = compile();
    } catch (error) {
      if (!(error instanceof AgentSpacesError)) throw error;
      entry = error;
    }
    cache.set(code, entry);
  }
  return unwrap(entry);
}

function unwrap(entry: TranspiledScript | AgentSpacesError): TranspiledScript {
  if (entry instanceof AgentSpacesError) throw entry;
  return entry;
}

type Transformed = { ok: true; js: string } | { ok: false; errors: Message[] };

/** The first pass's result, or the marked source for the second pass. */
interface Marked {
  marked: string;
  edits: Edit[];
}

function plan(code: string, first: Transformed): { script: TranspiledScript } | Marked {
  if (first.ok) return { script: assemble(first.js) };
  const returns = first.errors.filter((e) => e.text === TOP_LEVEL_RETURN);
  if (returns.length !== first.errors.length) throw syntaxError(code, first.errors.find((e) => e.text !== TOP_LEVEL_RETURN)!);
  const lines = lineStarts(code);
  const edits: Edit[] = returns.map((error) => {
    const offset = offsetOf(code, lines, error);
    if (offset === undefined || !code.startsWith('return', offset)) throw syntaxError(code, error);
    return { offset, length: 'return'.length, text: returnMarker(code, offset + 'return'.length) };
  });
  edits.sort((a, b) => a.offset - b.offset);
  let marked = '';
  let at = 0;
  for (const edit of edits) {
    marked += code.slice(at, edit.offset) + edit.text;
    at = edit.offset + edit.length;
  }
  return { marked: marked + code.slice(at), edits };
}

function finish(code: string, { marked, edits }: Marked, second: Transformed): TranspiledScript {
  if (!second.ok) throw syntaxError(code, second.errors[0]!, marked, edits);
  return assemble(second.js);
}

let warmed = false;

/** Starts esbuild's service ahead of the first run (once per process: the service then stays up). */
export function warmTranspiler(): void {
  if (warmed) return;
  warmed = true;
  transform('', ESBUILD_OPTIONS).catch(() => {
    warmed = false;
  });
}

/** One replacement of a top-level `return` keyword. */
interface Edit {
  offset: number;
  length: number;
  text: string;
}

/**
 * The marker replacing a top-level `return` at `after` (just past the keyword): `__as_return__ = ` when a value follows
 * on the same line, a labeled empty statement when the return has no value (ASI, `;`, `}` or end of input).
 */
function returnMarker(code: string, after: number): string {
  let i = after;
  while (i < code.length) {
    const c = code[i]!;
    if (c === ' ' || c === '\t') i++;
    else if (code.startsWith('/*', i)) {
      const end = code.indexOf('*/', i + 2);
      if (end === -1 || /[\n\r\u2028\u2029]/.test(code.slice(i, end))) return `${RETURN_MARKER}:;`;
      i = end + 2;
    } else break;
  }
  const next = code[i];
  if (next === undefined || next === '}' || next === '\n' || next === '\r' || next === '\u2028' || next === '\u2029' || code.startsWith('//', i)) {
    return `${RETURN_MARKER}:;`;
  }
  if (next === ';') return `${RETURN_MARKER}:`;
  return `${RETURN_MARKER} =`;
}

function tryTransform(run: () => string): Transformed {
  try {
    return { ok: true, js: run() };
  } catch (error) {
    return failure(error);
  }
}

async function tryTransformAsync(source: string): Promise<Transformed> {
  try {
    return { ok: true, js: (await transform(source, ESBUILD_OPTIONS)).code };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): Transformed {
  const errors = (error as { errors?: Message[] }).errors;
  if (!Array.isArray(errors) || errors.length === 0) throw error;
  return { ok: false, errors };
}

function lineStarts(code: string): number[] {
  const starts = [0];
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '\n' || c === '\u2028' || c === '\u2029' || (c === '\r' && code[i + 1] !== '\n')) starts.push(i + 1);
  }
  return starts;
}

/** The UTF-16 offset of an esbuild location (1-based line, 0-based column in UTF-8 bytes). */
function offsetOf(code: string, lines: number[], message: Message): number | undefined {
  const location = message.location;
  if (!location) return undefined;
  const start = lines[location.line - 1];
  if (start === undefined) return undefined;
  return start + Buffer.from(location.lineText, 'utf8').subarray(0, location.column).toString('utf8').length;
}

/** `SYNTAX_ERROR` at the agent's own 1-based line and column; `edits` turned `code` into the `source` esbuild saw. */
function syntaxError(code: string, message: Message, source = code, edits: readonly Edit[] = []): AgentSpacesError {
  const at = offsetOf(source, lineStarts(source), message);
  if (at === undefined) return new AgentSpacesError('SYNTAX_ERROR', `agent.ts: ${message.text}`);
  let delta = 0;
  for (const edit of edits) {
    const markedStart = edit.offset + delta;
    if (at < markedStart) break;
    if (at < markedStart + edit.text.length) {
      delta = at - edit.offset;
      break;
    }
    delta += edit.text.length - edit.length;
  }
  const offset = Math.min(at - delta, code.length);
  const lines = lineStarts(code);
  let line = lines.length;
  while (line > 1 && lines[line - 1]! > offset) line--;
  const column = offset - lines[line - 1]! + 1;
  return new AgentSpacesError('SYNTAX_ERROR', `agent.ts:${line}:${column}: ${message.text}`, { line, column });
}
