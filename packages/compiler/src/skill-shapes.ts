/**
 * Skills in the shapes agents write: a default-exported or differently named async function, a description given
 * beside the code, or a function body with a parameters schema, rewritten into the one shape a skill file has
 * (`/** doc *\/ export async function <name>(params: Params): Promise<Result>`) before it is checked and saved; and,
 * for code that cannot be rewritten on its own (types missing), the code rewritten as far as it can be, to show.
 */
import type ts from 'typescript';
import { schemaDeclarations } from './emit/schema-declarations.js';
import { typeName } from './ir/names.js';

/** What {@link shapeSkill} rewrites beside the code. */
export interface SkillShapeOptions {
  /** The doc comment of the function when the code has none. */
  description?: string;
  /** JSON Schema of `params`: `code` is then the function's body (statements using `params`), wrapped into the function. */
  parameters?: unknown;
  /** JSON Schema of the result of a wrapped body (default `unknown`). */
  returns?: unknown;
}

/** A placeholder for a type the code does not declare, in the code shown to the agent. */
const MISSING = (what: string) => `/* ${what} */ unknown`;

/**
 * `code` in the shape of skill `name`: a body with `parameters` wrapped into the typed function; else its function —
 * the one named `name`, the default export, or the only top-level function — exported as `async function <name>`,
 * with `description` as its doc comment when it has none. Code with no such function comes back as it is.
 */
export async function shapeSkill(name: string, code: string, options: SkillShapeOptions = {}): Promise<string> {
  const { default: typescript } = await import('typescript');
  if (options.parameters !== undefined) return wrapBody(typescript, name, code, options, false);
  const source = parse(typescript, code);
  const fn = skillFunction(typescript, source, name);
  if (!fn || !typescript.isFunctionDeclaration(fn)) return withDoc(code, name, options.description);
  return withDoc(replaceHead(source, fn, headOf(typescript, source, fn, name, false)), name, options.description);
}

/**
 * `code` (already through {@link shapeSkill}) rewritten into the accepted shape as far as it can be: an arrow or
 * function expression becomes a declaration, a sync function async, several parameters one `params` object, and a
 * type the code does not declare a marked placeholder; code with no function becomes the body of one
 * (`export default x` its `return x`), with `description` (else a placeholder) as its doc comment when it has none.
 */
export async function suggestSkill(name: string, code: string, description = `What ${name} does (or pass it as description).`): Promise<string> {
  const { default: typescript } = await import('typescript');
  const source = parse(typescript, code);
  const fn = skillFunction(typescript, source, name);
  if (!fn) return wrapBody(typescript, name, asBody(typescript, source), { description }, true);
  const head = headOf(typescript, source, fn, name, true);
  if (typescript.isFunctionDeclaration(fn)) return withDoc(replaceHead(source, fn, head), name, description);
  const statement = topStatement(typescript, fn);
  const body = typescript.isBlock(fn.body) ? fn.body.getText(source) : `{\n  return ${fn.body.getText(source)};\n}`;
  return withDoc(code.slice(0, statement.getStart(source)) + `${head} ${body}` + code.slice(statement.getEnd()), name, description);
}

/** The code of `source` as a function body: each `export default x` as `return x;`, other `export`s dropped. */
function asBody(typescript: typeof ts, source: ts.SourceFile): string {
  let text = source.text;
  for (const statement of [...source.statements].reverse()) {
    if (typescript.isExportAssignment(statement) && !statement.isExportEquals) {
      text = `${text.slice(0, statement.getStart(source))}return ${statement.expression.getText(source)};${text.slice(statement.getEnd())}`;
      continue;
    }
    const exported = typescript.canHaveModifiers(statement) ? (typescript.getModifiers(statement) ?? []).filter((m) => m.kind === typescript.SyntaxKind.ExportKeyword) : [];
    for (const modifier of exported) text = `${text.slice(0, modifier.getStart(source))}${text.slice(modifier.getEnd()).replace(/^\s+/, '')}`;
  }
  return text;
}

/** The text of a `/** … *\/` comment saying `text`; `*\/` inside it cannot end the comment. */
function docComment(text: string): string {
  const lines = text
    .trim()
    .replaceAll('*/', '*\\/')
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map((line) => ` * ${line}`.trimEnd());
  return `/**\n${lines.join('\n')}\n */\n`;
}

/** `code` with `description` as the doc comment of its exported function `name` when it has none. */
function withDoc(code: string, name: string, description: string | undefined): string {
  const at = code.search(new RegExp(String.raw`export\s+async\s+function\s+${name}\b`));
  if (description === undefined || description.trim() === '' || at === -1 || code.slice(0, at).trimEnd().endsWith('*/')) return code;
  return code.slice(0, at) + docComment(description) + code.slice(at);
}

/**
 * `body` (statements using `params`, its imports first) as the typed function `name`, its types from the schemas;
 * as shown (`suggest`), with marked placeholders for the types instead.
 */
function wrapBody(typescript: typeof ts, name: string, body: string, options: SkillShapeOptions, suggest: boolean): string {
  const source = parse(typescript, body);
  const imports = source.statements.filter((s) => typescript.isImportDeclaration(s));
  const afterImports = imports.length > 0 ? imports.at(-1)!.getEnd() : 0;
  const params = suggest ? undefined : schemaDeclarations(options.parameters, `${typeName(name)}Params`, '', `${name} parameters`);
  const result = suggest || options.returns === undefined ? undefined : schemaDeclarations(options.returns, `${typeName(name)}Result`, '', `${name} result`);
  const indented = body
    .slice(afterImports)
    .trim()
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : `  ${line}`))
    .join('\n');
  const doc = options.description?.trim() ? docComment(options.description) : '';
  const paramsType = params?.type ?? `{ ${MISSING('declare the fields params has')} }`;
  const resultType = result?.type ?? (suggest ? MISSING('declare the result type') : 'unknown');
  const types = [params?.text, result?.text].filter((text) => text !== undefined).map((text) => `${text}\n\n`).join('');
  const imported = body.slice(0, afterImports).trim();
  return `${imported}${imported ? '\n\n' : ''}${types}${doc}export async function ${name}(params: ${paramsType}): Promise<${resultType}> {\n${indented}\n}\n`;
}

function parse(typescript: typeof ts, code: string): ts.SourceFile {
  return typescript.createSourceFile('skill.ts', code, typescript.ScriptTarget.ES2022, true, typescript.ScriptKind.TS);
}

type SkillFunction = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

/**
 * The function of skill `name` in `source`: the top-level function named `name`, else the default export, else the
 * only exported function, else the only top-level function (declared, or a `const` arrow or function expression).
 */
function skillFunction(typescript: typeof ts, source: ts.SourceFile, name: string): SkillFunction | undefined {
  const functions: { fn: SkillFunction; name?: string; exported: boolean; isDefault: boolean }[] = [];
  for (const statement of source.statements) {
    const modifiers = typescript.canHaveModifiers(statement) ? (typescript.getModifiers(statement) ?? []) : [];
    const exported = modifiers.some((m) => m.kind === typescript.SyntaxKind.ExportKeyword);
    const isDefault = modifiers.some((m) => m.kind === typescript.SyntaxKind.DefaultKeyword);
    if (typescript.isFunctionDeclaration(statement) && statement.body) functions.push({ fn: statement, name: statement.name?.text, exported, isDefault });
    else if (typescript.isExportAssignment(statement) && !statement.isExportEquals && isFunction(typescript, statement.expression)) {
      functions.push({ fn: statement.expression, exported: true, isDefault: true });
    } else if (typescript.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (typescript.isIdentifier(d.name) && d.initializer && isFunction(typescript, d.initializer)) functions.push({ fn: d.initializer, name: d.name.text, exported, isDefault: false });
      }
    }
  }
  const exported = functions.filter((f) => f.exported);
  const chosen =
    functions.find((f) => f.name === name) ??
    functions.find((f) => f.isDefault) ??
    (exported.length === 1 ? exported[0] : undefined) ??
    (functions.length === 1 ? functions[0] : undefined);
  return chosen?.fn;
}

function isFunction(typescript: typeof ts, node: ts.Node): node is ts.ArrowFunction | ts.FunctionExpression {
  return typescript.isArrowFunction(node) || typescript.isFunctionExpression(node);
}

/** The statement at the top level of its file that holds `node`. */
function topStatement(typescript: typeof ts, node: ts.Node): ts.Node {
  let at = node;
  while (at.parent && !typescript.isSourceFile(at.parent)) at = at.parent;
  return at;
}

/**
 * `export async function <name>(<params>): Promise<…>` for `fn`. As saved (`suggest` false) its parameters and
 * result type are kept as written; as shown (`suggest` true) several parameters become one `params` object, a sync
 * result is wrapped in `Promise<…>` and a missing type is a marked placeholder.
 */
function headOf(typescript: typeof ts, source: ts.SourceFile, fn: SkillFunction, name: string, suggest: boolean): string {
  const parameters = fn.parameters.map((p) => p.getText(source)).join(', ');
  const written = fn.type?.getText(source);
  const isAsync = fn.modifiers?.some((m) => m.kind === typescript.SyntaxKind.AsyncKeyword) ?? false;
  if (!suggest) return `export ${isAsync ? 'async ' : ''}function ${name}(${parameters})${written ? `: ${written}` : ''}`;
  let params = parameters;
  const [first] = fn.parameters;
  if (fn.parameters.length > 1) {
    const fields = fn.parameters.map((p) => `${p.name.getText(source)}${p.questionToken || p.initializer ? '?' : ''}: ${p.type?.getText(source) ?? MISSING('its type')}`);
    params = `{ ${fn.parameters.map((p) => p.name.getText(source)).join(', ')} }: { ${fields.join('; ')} }`;
  } else if (first && !first.type) {
    params = `${first.name.getText(source)}: { ${MISSING('declare the fields params has')} }`;
  }
  const isPromise = written !== undefined && /^Promise\s*</.test(written);
  const result = written === undefined ? `Promise<${MISSING('declare the result type')}>` : isAsync || isPromise ? written : `Promise<${written}>`;
  return `export async function ${name}(${params}): ${result}`;
}

/** `code` with the head of function declaration `fn` (modifiers, name, parameters, result type) replaced by `head`. */
function replaceHead(source: ts.SourceFile, fn: ts.FunctionDeclaration, head: string): string {
  return `${source.text.slice(0, fn.getStart(source))}${head} ${source.text.slice(fn.body!.getStart(source))}`;
}
