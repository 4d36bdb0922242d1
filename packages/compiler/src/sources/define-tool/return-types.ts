import type ts from 'typescript';
import { DeclarationCollector, returnsPointer, type TypeProblem } from './declarations.js';
import { sourcePrograms } from './program.js';

/** Which return types to read for one exported definition. */
export interface DefinitionRequest {
  /** The export binding (`trainSchedule`, `default`). */
  exportName: string;
  /** Keys of every function of the definition. */
  functions: string[];
  /** Keys of the functions whose `returns` is set at run time (a `returns` the source does not show is an error). */
  withReturns: string[];
}

/** The return types of one definition and every declaration they need. */
export interface DefinitionTypes {
  /** TypeScript text of each function's `returns` type, by function key. */
  returnsTypes: Map<string, string>;
  /** The referenced local interfaces, type aliases and enums (as literal unions), each exported, with their JSDoc. */
  declarations: string[];
  problems: TypeProblem[];
}

/** Adds `file` to the shared program early, so sources read concurrently end up in one program. */
export async function registerTypeSource(file: string): Promise<void> {
  const { default: typescript } = await import('typescript');
  sourcePrograms(typescript).register(file);
}

/**
 * Reads the `returns: {} as T` types of the given definitions exported by `file` with the TypeScript compiler API,
 * and collects every local type they refer to, transitively. Types from lib files or packages stay references.
 */
export async function extractDefinitionTypes(
  file: string,
  requests: DefinitionRequest[],
): Promise<Map<string, DefinitionTypes>> {
  const { default: typescript } = await import('typescript');
  const program = sourcePrograms(typescript).programFor(file);
  const reader = new TypeReader(typescript, program);
  const sourceFile = program.getSourceFile(file);
  const results = new Map<string, DefinitionTypes>();
  for (const request of requests) {
    results.set(request.exportName, reader.readDefinition(sourceFile, request));
  }
  return results;
}

type Unwrappable =
  | ts.ParenthesizedExpression
  | ts.AsExpression
  | ts.SatisfiesExpression
  | ts.TypeAssertion
  | ts.NonNullExpression;

class TypeReader {
  readonly #ts: typeof ts;
  readonly #program: ts.Program;
  readonly #checker: ts.TypeChecker;

  constructor(typescript: typeof ts, program: ts.Program) {
    this.#ts = typescript;
    this.#program = program;
    this.#checker = program.getTypeChecker();
  }

  readDefinition(sourceFile: ts.SourceFile | undefined, request: DefinitionRequest): DefinitionTypes {
    const result: DefinitionTypes = { returnsTypes: new Map(), declarations: [], problems: [] };
    const definition = sourceFile && this.#definitionLiteral(sourceFile, request.exportName);
    if (!definition) {
      if (request.withReturns.length === 0) return result;
      result.problems.push({
        severity: 'error',
        message: `cannot find the defineTool({ ... }) object of export "${request.exportName}" in the source, so its return types cannot be read`,
      });
      return result;
    }
    const functions = this.#objectLiteral(this.#property(definition, 'functions'));
    const collector = new DeclarationCollector(this.#ts, this.#program, this.#checker, result.problems);
    for (const key of request.functions) {
      const pointer = returnsPointer(key);
      const fn = functions && this.#objectLiteral(this.#property(functions, key));
      const returns = fn && this.#property(fn, 'returns');
      if (!returns && !request.withReturns.includes(key)) continue;
      const typeNode = returns && this.#assertedType(returns);
      if (!typeNode) {
        result.problems.push({
          severity: 'error',
          pointer,
          message: `cannot read the return type of ${key}: write it as "returns: {} as T"`,
        });
        continue;
      }
      result.returnsTypes.set(key, collector.render(typeNode, typeNode.getStart(), key));
    }
    result.declarations = collector.drain();
    return result;
  }

  /** The object literal passed to `defineTool()` for an export of the module. */
  #definitionLiteral(sourceFile: ts.SourceFile, exportName: string): ts.ObjectLiteralExpression | undefined {
    const moduleSymbol = this.#checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) return undefined;
    const exported = this.#checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === exportName);
    return exported && this.#objectLiteralOfSymbol(exported, 0);
  }

  #objectLiteralOfSymbol(symbol: ts.Symbol, depth: number): ts.ObjectLiteralExpression | undefined {
    const target = symbol.flags & this.#ts.SymbolFlags.Alias ? this.#checker.getAliasedSymbol(symbol) : symbol;
    const declaration = target.valueDeclaration ?? target.declarations?.[0];
    if (!declaration) return undefined;
    if (this.#ts.isVariableDeclaration(declaration)) return this.#objectLiteral(declaration.initializer, depth + 1);
    if (this.#ts.isExportAssignment(declaration)) return this.#objectLiteral(declaration.expression, depth + 1);
    return undefined;
  }

  /** Follows wrappers, `defineTool(...)` calls and `const` identifiers to an object literal. */
  #objectLiteral(node: ts.Node | undefined, depth = 0): ts.ObjectLiteralExpression | undefined {
    if (!node || depth > 10) return undefined;
    const t = this.#ts;
    let expression: ts.Node = node;
    while (this.#isUnwrappable(expression)) expression = expression.expression;
    if (t.isObjectLiteralExpression(expression)) return expression;
    if (t.isCallExpression(expression)) return this.#objectLiteral(expression.arguments[0], depth + 1);
    if (t.isShorthandPropertyAssignment(expression)) {
      const symbol = this.#checker.getShorthandAssignmentValueSymbol(expression);
      return symbol && this.#objectLiteralOfSymbol(symbol, depth);
    }
    if (t.isIdentifier(expression)) {
      const symbol = this.#checker.getSymbolAtLocation(expression);
      return symbol && this.#objectLiteralOfSymbol(symbol, depth);
    }
    return undefined;
  }

  #isUnwrappable(node: ts.Node): node is Unwrappable {
    const t = this.#ts;
    return (
      t.isParenthesizedExpression(node) ||
      t.isAsExpression(node) ||
      t.isSatisfiesExpression(node) ||
      t.isTypeAssertionExpression(node) ||
      t.isNonNullExpression(node)
    );
  }

  /** The value node of property `key` (the last one wins, spreads included). */
  #property(object: ts.ObjectLiteralExpression, key: string): ts.Node | undefined {
    const t = this.#ts;
    for (const property of [...object.properties].reverse()) {
      if (t.isSpreadAssignment(property)) {
        const spread = this.#objectLiteral(property.expression);
        const found = spread && this.#property(spread, key);
        if (found) return found;
      } else if (propertyName(t, property.name) === key) {
        if (t.isPropertyAssignment(property)) return property.initializer;
        if (t.isShorthandPropertyAssignment(property)) return property;
      }
    }
    return undefined;
  }

  /** `{} as T`, `<T>{}`, `{} satisfies T` or, in JavaScript, `/** @type {T} *\/ ({})`: the type node of T. */
  #assertedType(node: ts.Node): ts.TypeNode | undefined {
    const t = this.#ts;
    let expression = node;
    while (t.isParenthesizedExpression(expression)) {
      const jsDocType = t.getJSDocType(expression);
      if (jsDocType) return jsDocType;
      expression = expression.expression;
    }
    if (t.isAsExpression(expression) || t.isTypeAssertionExpression(expression) || t.isSatisfiesExpression(expression)) {
      // `as const` names no type.
      return t.isTypeReferenceNode(expression.type) && expression.type.typeName.getText() === 'const' ? undefined : expression.type;
    }
    return undefined;
  }
}

function propertyName(t: typeof ts, name: ts.PropertyName | undefined): string | undefined {
  if (!name) return undefined;
  if (t.isIdentifier(name) || t.isStringLiteral(name) || t.isNumericLiteral(name) || t.isPrivateIdentifier(name)) {
    return name.text;
  }
  if (t.isComputedPropertyName(name) && t.isStringLiteralLike(name.expression)) return name.expression.text;
  return undefined;
}
