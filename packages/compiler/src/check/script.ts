import type ts from 'typescript';
import { bindingDeclarations, declaredNames, type Binding } from './bindings.js';

/** The text the language service checks for one piece of agent code, and the way back to the agent's offsets. */
export interface PreparedScript {
  /**
   * The agent's code itself, or — when it has a top-level `return` — the code as the runtime runs it; then the
   * declarations of a session's bindings, if any.
   */
  readonly text: string;
  /** 1-based line and column in the agent's code of an offset in `text` (before {@link bindingsStart}). */
  locate(position: number): { line: number; column: number };
  /**
   * The offset in the agent's code of an offset in `text` (before {@link bindingsStart}); `undefined` inside the text
   * the wrapper added, which is not the agent's.
   */
  offset(position: number): number | undefined;
  /** Offsets in `text` of each `export default` in a script that also has a top-level `return`. */
  readonly mixedExportDefaults: readonly number[];
  /** Offset in `text` where the declarations of the session's bindings begin (`text.length` when there are none). */
  readonly bindingsStart: number;
  /** The top-level statements of the agent's code in `file`, the parse of `text`: the wrapper's body, if wrapped. */
  statements(file: ts.SourceFile): readonly ts.Statement[];
}

/** Code of the diagnostic for a script that mixes `export default` with a top-level `return`. */
export const MIXED_RESULT_CODE = 100_001;
/** Its message, at each `export default` of such a script. */
export const MIXED_RESULT_MESSAGE = "This script also has a top-level 'return': give its result with either 'export default' or 'return', not both.";

const WRAPPER = '__main__';
// Starts with `;` so that it also follows an import declaration that has no semicolon.
const PREFIX = `; async function ${WRAPPER}() {`;
const SUFFIX = '\n}';

/**
 * Prepares agent code for checking. Code with a top-level `return` is checked as the runtime runs it: everything
 * after the leading imports becomes the body of an async function, with `export` (and `default`) modifiers of
 * top-level declarations blanked and `export default <expr>` turned into `return <expr>`. Every edit keeps the
 * length and line structure of the agent's code, so diagnostics map back exactly. A session's `bindings` are
 * declared after the code, private to this script (it is a module), so the code's positions stay as they are.
 */
export function prepareScript(typescript: typeof ts, code: string, bindings?: ReadonlyMap<string, Binding>): PreparedScript {
  // A top-level return needs the keyword; most scripts outside sessions are spared the parse.
  const maybeReturns = /\breturn\b/.test(code);
  if (!maybeReturns && !bindings?.size) return unchanged(code, '');
  const file = typescript.createSourceFile('agent.ts', code, typescript.ScriptTarget.ES2022, false, typescript.ScriptKind.TS);
  const wraps = maybeReturns && file.statements.some((statement) => hasTopLevelReturn(typescript, statement));
  const declarations = bindings?.size ? bindingDeclarations(bindings, declaredNames(typescript, file.statements), wraps ? WRAPPER : undefined) : '';
  if (!wraps) return unchanged(code, declarations);

  const statements = file.statements;
  let firstBody = 0;
  while (firstBody < statements.length && typescript.isImportDeclaration(statements[firstBody]!)) firstBody++;
  const bodyStart = firstBody === 0 ? 0 : statements[firstBody - 1]!.end;

  const body = code.split('');
  const mixedExportDefaults: number[] = [];
  const blank = (from: number, to: number, keep = ''): void => {
    for (let i = from; i < to; i++) {
      const k = i - from;
      if (k < keep.length) body[i] = keep[k]!;
      else if (body[i] !== '\n' && body[i] !== '\r') body[i] = ' ';
    }
  };
  for (const statement of statements.slice(firstBody)) {
    if (typescript.isExportAssignment(statement) && !statement.isExportEquals) {
      const start = statement.getStart(file);
      mixedExportDefaults.push(start);
      blank(start, statement.expression.getStart(file), 'return');
      continue;
    }
    const modifiers = typescript.canHaveModifiers(statement) ? (typescript.getModifiers(statement) ?? []) : [];
    const exported = modifiers.filter(
      (m) => m.kind === typescript.SyntaxKind.ExportKeyword || m.kind === typescript.SyntaxKind.DefaultKeyword,
    );
    if (exported.some((m) => m.kind === typescript.SyntaxKind.DefaultKeyword)) {
      mixedExportDefaults.push(exported[0]!.getStart(file));
    }
    for (const modifier of exported) blank(modifier.getStart(file), modifier.end);
  }

  const wrapped = code.slice(0, bodyStart) + PREFIX + body.slice(bodyStart).join('') + SUFFIX;
  const toText = (position: number) => (position < bodyStart ? position : position + PREFIX.length);
  const toOriginal = (position: number) => {
    if (position < bodyStart) return position;
    if (position < bodyStart + PREFIX.length) return bodyStart;
    return Math.min(position - PREFIX.length, code.length);
  };
  const inWrapper = (position: number) =>
    (position >= bodyStart && position < bodyStart + PREFIX.length) || position >= wrapped.length - SUFFIX.length;
  return {
    text: wrapped + declarations,
    mixedExportDefaults: mixedExportDefaults.map(toText),
    locate: locator(code, toOriginal),
    offset: (position) => (inWrapper(position) ? undefined : toOriginal(position)),
    bindingsStart: wrapped.length,
    statements: (parsed) => {
      const wrapper = parsed.statements.find((s): s is ts.FunctionDeclaration => typescript.isFunctionDeclaration(s) && s.name?.text === WRAPPER);
      return wrapper?.body?.statements ?? [];
    },
  };
}

function unchanged(code: string, declarations: string): PreparedScript {
  return {
    text: code + declarations,
    mixedExportDefaults: [],
    locate: locator(code, (position) => position),
    offset: (position) => position,
    bindingsStart: code.length,
    statements: (parsed) => parsed.statements.filter((statement) => statement.end <= code.length),
  };
}

/** Line and column lookup in `code`, counting line breaks as TypeScript does. */
function locator(code: string, toOriginal: (position: number) => number): PreparedScript['locate'] {
  let lineStarts: number[] | undefined;
  return (position) => {
    lineStarts ??= computeLineStarts(code);
    const offset = toOriginal(position);
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low]! + 1 };
  };
}

function computeLineStarts(code: string): number[] {
  const starts = [0];
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '\r' && code[i + 1] === '\n') i++;
    if (c === '\r' || c === '\n' || c === '\u2028' || c === '\u2029') starts.push(i + 1);
  }
  return starts;
}

/** True when `node` is, or contains, a `return` that is not inside a function or class static block. */
function hasTopLevelReturn(typescript: typeof ts, node: ts.Node): boolean {
  if (typescript.isReturnStatement(node)) return true;
  if (typescript.isFunctionLike(node) || typescript.isClassStaticBlockDeclaration(node)) return false;
  return typescript.forEachChild(node, (child) => hasTopLevelReturn(typescript, child) || undefined) ?? false;
}
