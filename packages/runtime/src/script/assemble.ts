import { parse, type Node, type Pattern, type Program, type Statement } from 'acorn';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/** Agent code ready for the sandbox: one ES module whose default export runs the script. */
export interface TranspiledScript {
  /** The module: the script's imports, then `export default async function __main__(register)`. */
  readonly code: string;
  /** Every module specifier the script imports statically, in order, without duplicates. */
  readonly imports: readonly string[];
  /** Names of the script's top-level declarations; a session keeps them as globals for its next runs. */
  readonly declarations: readonly string[];
}

/** Label/identifier standing in for a top-level `return` between the two esbuild passes. */
export const RETURN_MARKER = '__as_return__';
const RESULT = '__as_result__';
const REGISTER = '__as_register__';

/** A replacement of `[start, end)` of esbuild's output. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Assembles esbuild's JavaScript output into the module the sandbox runs: imports on top, everything else inside
 * `__main__`, markers turned back into `return`, `export` keywords stripped and the default export returned.
 */
export function assemble(js: string): TranspiledScript {
  let program: Program;
  try {
    program = parse(js, { ecmaVersion: 'latest', sourceType: 'module' });
  } catch (error) {
    throw new AgentSpacesError('SYNTAX_ERROR', `agent.ts: ${(error as Error).message}`);
  }
  const { edits, imports, importText, declarations, result } = topLevel(program, js);
  walk(program, false, edits, js);

  edits.sort((a, b) => a.start - b.start);
  let body = '';
  let at = 0;
  for (const edit of edits) {
    body += js.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  body += js.slice(at);

  // esbuild names the binding of `export default <expr>` after the source file (`agent_default`): not the agent's.
  const names = [...declarations].filter((name) => !name.startsWith('__as_') && !(name === result && /^agent_default\d*$/.test(name)));
  const getters = names.map((name) => `${name}: () => ${name}`).join(', ');
  const code = [
    ...importText,
    `export default async function __main__(${REGISTER}) {`,
    `${REGISTER}({ ${getters} });`,
    ...(result === RESULT ? [`let ${RESULT};`] : []),
    body,
    `return ${result ?? 'undefined'};`,
    '}',
    '',
  ].join('\n');
  return Object.freeze({ code, imports: Object.freeze(imports), declarations: Object.freeze(names) });
}

/** What the module's top-level statements hold: its imports, declarations and result, and the edits that unwrap them. */
interface TopLevel {
  edits: Edit[];
  /** Specifiers imported, in order, without duplicates. */
  imports: string[];
  /** The import statements' text, kept on top of the module. */
  importText: string[];
  declarations: Set<string>;
  /** The name holding the default export, if any. */
  result: string | undefined;
}

/** Reads the top-level statements: imports move on top, `export` keywords go, declarations and the result are noted. */
function topLevel(program: Program, js: string): TopLevel {
  const found: TopLevel = { edits: [], imports: [], importText: [], declarations: new Set(), result: undefined };
  const { edits, imports, declarations } = found;
  for (const statement of program.body) {
    switch (statement.type) {
      case 'ImportDeclaration': {
        const specifier = String(statement.source.value);
        if (!imports.includes(specifier)) imports.push(specifier);
        found.importText.push(js.slice(statement.start, statement.end));
        edits.push({ start: statement.start, end: statement.end, text: '' });
        break;
      }
      case 'ExportAllDeclaration':
        throw new AgentSpacesError('SYNTAX_ERROR', `agent.ts: re-exporting from "${String(statement.source.value)}" is not supported`);
      case 'ExportNamedDeclaration':
        if (statement.source) {
          throw new AgentSpacesError('SYNTAX_ERROR', `agent.ts: re-exporting from "${String(statement.source.value)}" is not supported`);
        }
        if (statement.declaration) {
          collect(statement.declaration, declarations);
          edits.push({ start: statement.start, end: statement.declaration.start, text: '' });
        } else {
          for (const specifier of statement.specifiers) {
            if (nameOf(specifier.exported) === 'default') found.result = nameOf(specifier.local);
          }
          edits.push({ start: statement.start, end: statement.end, text: '' });
        }
        break;
      case 'ExportDefaultDeclaration': {
        const declaration = statement.declaration;
        if ((declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') && declaration.id) {
          declarations.add(declaration.id.name);
          found.result = declaration.id.name;
          edits.push({ start: statement.start, end: declaration.start, text: '' });
        } else {
          found.result = RESULT;
          edits.push({ start: statement.start, end: declaration.start, text: `${RESULT} = (` });
          edits.push({ start: declaration.end, end: statement.end, text: ');' });
        }
        break;
      }
      default:
        collect(statement, declarations);
    }
  }
  return found;
}

/** Adds the names a top-level statement declares (destructuring patterns included). */
function collect(statement: Statement | Node, into: Set<string>): void {
  switch (statement.type) {
    case 'VariableDeclaration':
      for (const declarator of (statement as Extract<Statement, { type: 'VariableDeclaration' }>).declarations) {
        patternNames(declarator.id, into);
      }
      break;
    case 'FunctionDeclaration':
    case 'ClassDeclaration': {
      const id = (statement as { id?: { name: string } | null }).id;
      if (id) into.add(id.name);
      break;
    }
  }
}

function patternNames(pattern: Pattern, into: Set<string>): void {
  switch (pattern.type) {
    case 'Identifier':
      into.add(pattern.name);
      break;
    case 'ObjectPattern':
      for (const property of pattern.properties) patternNames(property.type === 'RestElement' ? property.argument : property.value, into);
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements) if (element) patternNames(element, into);
      break;
    case 'RestElement':
      patternNames(pattern.argument, into);
      break;
    case 'AssignmentPattern':
      patternNames(pattern.left, into);
      break;
  }
}

function nameOf(node: { type: string; name?: string; value?: unknown }): string {
  return node.type === 'Identifier' ? node.name! : String(node.value);
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Finds `import()` anywhere and the return markers outside functions; records the edits that restore `return`. */
function walk(root: Node, inFunction: boolean, edits: Edit[], js: string): void {
  const stack: Array<{ node: Node; inFunction: boolean }> = [{ node: root, inFunction }];
  while (stack.length > 0) {
    const { node, inFunction: inside } = stack.pop()!;
    if (node.type === 'ImportExpression') {
      throw new AgentSpacesError('IMPORT_NOT_FOUND', 'agent.ts: dynamic import() is not available in the sandbox; use a static import');
    }
    if (!inside) markerEdit(node, js, edits);
    const nested = inside || FUNCTION_TYPES.has(node.type);
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) {
        for (const child of value) if (isNode(child)) stack.push({ node: child, inFunction: nested });
      } else if (isNode(value)) {
        stack.push({ node: value, inFunction: nested });
      }
    }
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** `__as_return__ = x[, y];` → `return x[, y];` and `__as_return__: ;` → `return;`. */
function markerEdit(node: Node, js: string, edits: Edit[]): void {
  if (node.type === 'LabeledStatement') {
    const labeled = node as Extract<Statement, { type: 'LabeledStatement' }>;
    if (labeled.label.name === RETURN_MARKER && labeled.body.type === 'EmptyStatement') {
      edits.push({ start: node.start, end: node.end, text: 'return;' });
    }
    return;
  }
  if (node.type !== 'ExpressionStatement') return;
  const expression = (node as Extract<Statement, { type: 'ExpressionStatement' }>).expression;
  const first = expression.type === 'SequenceExpression' ? expression.expressions[0] : expression;
  if (
    first?.type === 'AssignmentExpression' &&
    first.operator === '=' &&
    first.left.type === 'Identifier' &&
    first.left.name === RETURN_MARKER
  ) {
    edits.push({ start: node.start, end: node.end, text: `return ${js.slice(first.right.start, expression.end)};` });
  }
}
