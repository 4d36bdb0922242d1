import type ts from 'typescript';

/** A top-level binding of a session's script, as its next scripts see it. */
export interface Binding {
  /** Its type, printed to be declared in another script (`any` when it cannot be). */
  readonly type: string;
  /** The names `type` refers to (the first name of each type reference and `typeof`), which must mean the same there. */
  readonly references: readonly string[];
}

/** The names a script's top-level statements declare, by what declaring them again would clash with. */
export interface DeclaredNames {
  /** Variables, functions, classes, enums and namespaces: what a session keeps between runs. */
  readonly values: ts.Identifier[];
  /** Imported names. */
  readonly imports: ts.Identifier[];
  /** Interfaces and type aliases. */
  readonly types: ts.Identifier[];
}

/** The names `statements` (a script's top level) declare. */
export function declaredNames(typescript: typeof ts, statements: readonly ts.Statement[]): DeclaredNames {
  const names: DeclaredNames = { values: [], imports: [], types: [] };
  for (const statement of statements) {
    if (typescript.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) names.values.push(...bindingIdentifiers(typescript, declaration.name));
    } else if (
      typescript.isFunctionDeclaration(statement) ||
      typescript.isClassDeclaration(statement) ||
      typescript.isEnumDeclaration(statement) ||
      typescript.isModuleDeclaration(statement)
    ) {
      if (statement.name && typescript.isIdentifier(statement.name)) names.values.push(statement.name);
    } else if (typescript.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.imports.push(clause.name);
      const bindings = clause?.namedBindings;
      if (bindings && typescript.isNamespaceImport(bindings)) names.imports.push(bindings.name);
      else if (bindings) names.imports.push(...bindings.elements.map((element) => element.name));
    } else if (typescript.isImportEqualsDeclaration(statement)) {
      names.imports.push(statement.name);
    } else if (typescript.isInterfaceDeclaration(statement) || typescript.isTypeAliasDeclaration(statement)) {
      names.types.push(statement.name);
    }
  }
  return names;
}

/**
 * The `declare var` lines that give a session's next script its bindings. The script's own top-level values and
 * imports, and the `wrapper` function its code is checked in, replace bindings of the same name, which are left out; a type that mentions a name the script declares
 * at its top level would mean that name instead, so it becomes `any`. Starts with a line break, so the lines never
 * continue the script's last line (a `//` comment).
 */
export function bindingDeclarations(bindings: ReadonlyMap<string, Binding>, declared: DeclaredNames, wrapper?: string): string {
  const replaced = new Set([...declared.values, ...declared.imports].map((name) => name.text));
  if (wrapper !== undefined) replaced.add(wrapper);
  const shadowing = new Set([...replaced, ...declared.types.map((name) => name.text)]);
  const lines: string[] = [];
  for (const [name, { type, references }] of bindings) {
    if (!replaced.has(name)) lines.push(`declare var ${name}: ${references.some((r) => shadowing.has(r)) ? 'any' : type};`);
  }
  return lines.length === 0 ? '' : `\n${lines.join('\n')}\n`;
}

/**
 * The top-level bindings `statements` declare (variables, functions, classes, enums, namespaces), each with the
 * type TypeScript infers for it, printed fully qualified (`import("@capabilities/train-schedule").Trip[]`). A type
 * that cannot be written outside `file` becomes `any`: one that TypeScript cannot print as a type (an anonymous
 * class), or one that names something declared in `file` (a local interface, `typeof` a local) or imports it by path.
 */
export function collectBindings(
  typescript: typeof ts,
  checker: ts.TypeChecker,
  file: ts.SourceFile,
  statements: readonly ts.Statement[],
): Map<string, Binding> {
  const flags = typescript.NodeBuilderFlags.NoTruncation | typescript.NodeBuilderFlags.UseFullyQualifiedType;
  const printer = typescript.createPrinter({ removeComments: true });
  let local: Set<string> | undefined;
  const isLocal = (reference: string) => (local ??= localNames(typescript, file)).has(reference);
  const bindings = new Map<string, Binding>();
  for (const name of declaredNames(typescript, statements).values) {
    if (!isBindable(typescript, name)) continue;
    // Without IgnoreErrors, the node builder gives up (undefined) where it would print something that is no type.
    const node = checker.typeToTypeNode(checker.getTypeAtLocation(name), undefined, flags);
    const references = node && referencesOf(typescript, node);
    if (!node || !references || references.some(isLocal)) bindings.set(name.text, ANY);
    else bindings.set(name.text, { type: printer.printNode(typescript.EmitHint.Unspecified, node, file), references });
  }
  return bindings;
}

const ANY: Binding = { type: 'any', references: [] };

function bindingIdentifiers(typescript: typeof ts, name: ts.BindingName): ts.Identifier[] {
  if (typescript.isIdentifier(name)) return [name];
  return name.elements.flatMap((element) => (typescript.isOmittedExpression(element) ? [] : bindingIdentifiers(typescript, element.name)));
}

/** False for names a `declare var` cannot declare in module code (`let`, `yield`, `await`, reserved words). */
function isBindable(typescript: typeof ts, name: ts.Identifier): boolean {
  const token = typescript.identifierToKeywordKind(name);
  if (token === undefined) return true;
  const reserved = token >= typescript.SyntaxKind.FirstReservedWord && token <= typescript.SyntaxKind.LastReservedWord;
  const strict = token >= typescript.SyntaxKind.FirstFutureReservedWord && token <= typescript.SyntaxKind.LastFutureReservedWord;
  return !reserved && !strict && token !== typescript.SyntaxKind.AwaitKeyword;
}

/** The names the printed type `node` refers to; `undefined` when it imports a module by path (`import("./x")`). */
function referencesOf(typescript: typeof ts, node: ts.TypeNode): string[] | undefined {
  const leftmost = (name: ts.EntityName): string => (typescript.isIdentifier(name) ? name.text : leftmost(name.left));
  const references: string[] = [];
  const visit = (child: ts.Node): boolean => {
    if (typescript.isTypeReferenceNode(child)) references.push(leftmost(child.typeName));
    else if (typescript.isTypeQueryNode(child)) references.push(leftmost(child.exprName));
    else if (typescript.isImportTypeNode(child)) {
      const argument = child.argument;
      const specifier = typescript.isLiteralTypeNode(argument) && typescript.isStringLiteral(argument.literal) ? argument.literal.text : '.';
      if (specifier.startsWith('.') || specifier.startsWith('/')) return true;
    }
    return typescript.forEachChild(child, visit) ?? false;
  };
  return visit(node) ? undefined : references;
}

/** Every name declared anywhere in `file` but type parameters (which the printed type declares itself). */
function localNames(typescript: typeof ts, file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (typescript.isClassLike(node) ||
        typescript.isInterfaceDeclaration(node) ||
        typescript.isTypeAliasDeclaration(node) ||
        typescript.isEnumDeclaration(node) ||
        typescript.isModuleDeclaration(node) ||
        typescript.isFunctionDeclaration(node) ||
        typescript.isFunctionExpression(node) ||
        typescript.isVariableDeclaration(node) ||
        typescript.isParameter(node) ||
        typescript.isBindingElement(node) ||
        typescript.isImportClause(node) ||
        typescript.isImportSpecifier(node) ||
        typescript.isNamespaceImport(node) ||
        typescript.isImportEqualsDeclaration(node)) &&
      node.name &&
      typescript.isIdentifier(node.name)
    ) {
      names.add(node.name.text);
    }
    typescript.forEachChild(node, visit);
  };
  visit(file);
  return names;
}
