/**
 * The `catalog.json` of an npm package capability, read from the package's own declarations, so search finds its
 * functions as it finds any capability's: each function's path (the name agent code imports, then the member), its
 * own signature (the result promised in `host` mode, where a call crosses the bridge; as declared in `sandbox` mode,
 * where it is a plain call), its doc comment and the declarations of the package types the signature names.
 */
import { CAPABILITY_PREFIX, CATALOG_VERSION, type CapabilityCatalog, type CatalogFunction } from '@agent-spaces/capabilities';
import type ts from 'typescript';
import { FIELD_DEPTH, searchFields } from '../../emit/catalog.js';
import { oneLine } from '../../emit/one-line.js';
import type { NpmSource } from './config.js';
import type { PackageExport } from './exports.js';

/**
 * The catalog of package `source`'s `functions` (read from `program`); `description` (the package's) is the context
 * of every function. A `host`-mode function names its capability function (`function`); a `sandbox`-mode one is none.
 */
export function packageCatalog(
  typescript: typeof ts,
  program: ts.Program,
  source: NpmSource,
  functions: readonly PackageExport[],
  description: string | undefined,
): CapabilityCatalog {
  const checker = program.getTypeChecker();
  const module = CAPABILITY_PREFIX + source.id;
  const types: Record<string, string> = {};

  /** The declarations of the package's named types `node` refers to, transitively, into `found` (by name). */
  const collect = (node: ts.Node, found: Map<string, string>): void => {
    if (typescript.isTypeReferenceNode(node) || typescript.isExpressionWithTypeArguments(node)) {
      const name = typescript.isTypeReferenceNode(node) ? node.typeName : node.expression;
      const at = typescript.isQualifiedName(name) ? name.right : typescript.isPropertyAccessExpression(name) ? name.name : name;
      let symbol = checker.getSymbolAtLocation(at);
      if (symbol && symbol.flags & typescript.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declarations = (symbol?.declarations ?? []).filter(
        (d) =>
          (typescript.isInterfaceDeclaration(d) || typescript.isTypeAliasDeclaration(d) || typescript.isEnumDeclaration(d) || typescript.isClassDeclaration(d)) &&
          !program.isSourceFileDefaultLibrary(d.getSourceFile()),
      );
      if (symbol && declarations.length > 0 && !found.has(symbol.name)) {
        found.set(symbol.name, declarations.map((d) => d.getSourceFile().text.slice(d.getFullStart(), d.end).trim()).join('\n'));
        for (const d of declarations) collect(d, found);
      }
    }
    typescript.forEachChild(node, (child) => collect(child, found));
  };

  /** The property names of `type` (and of the objects below it) that the package declares: no `length` of a string. */
  const fieldNames = (type: ts.Type, depth: number): string[] => {
    if (depth === 0) return [];
    if (type.isUnionOrIntersection()) return type.types.flatMap((t) => fieldNames(t, depth));
    if (!(type.flags & typescript.TypeFlags.Object)) return [];
    if (checker.isArrayType(type)) return checker.getTypeArguments(type as ts.TypeReference).flatMap((t) => fieldNames(t, depth));
    const declared = type.getSymbol()?.declarations ?? [];
    if (declared.length === 0 || declared.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))) return [];
    return checker.getPropertiesOfType(type).flatMap((p) => [p.name, ...fieldNames(checker.getTypeOfSymbol(p), depth - 1)]);
  };

  const entry = ({ path, symbol, signature }: PackageExport): CatalogFunction => {
    const declaration = signature.getDeclaration() as ts.SignatureDeclaration | undefined;
    const typeText = (node: ts.TypeNode | undefined, type: () => ts.Type) => (node ? oneLine(node.getText()) : checker.typeToString(type()));
    const params = signature.getParameters().map((parameter) => {
      const node = parameter.valueDeclaration && typescript.isParameter(parameter.valueDeclaration) ? parameter.valueDeclaration : undefined;
      const optional = node ? checker.isOptionalParameter(node) : false;
      const name = node ? oneLine(node.name.getText()) : parameter.name;
      return `${node?.dotDotDotToken ? '...' : ''}${name}${optional ? '?' : ''}: ${typeText(node?.type, () => checker.getTypeOfSymbol(parameter))}`;
    });
    const declared = typeText(declaration?.type, () => signature.getReturnType());
    const promised = declaration?.type && typescript.isTypeReferenceNode(declaration.type) && declaration.type.typeName.getText() === 'Promise';
    const result = source.mode === 'host' && !promised ? `Promise<${declared}>` : declared;
    const typeParams = declaration?.typeParameters ? `<${declaration.typeParameters.map((p) => oneLine(p.getText())).join(', ')}>` : '';
    const related = new Map<string, string>();
    if (declaration) for (const part of [...declaration.parameters, ...(declaration.type ? [declaration.type] : [])]) collect(part, related);
    for (const [name, text] of related) types[name] ??= text;
    const returns = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
    // A parameter's name is the first level of its fields, as a params schema's property is.
    const fields = signature.getParameters().flatMap((p) => [p.name, ...fieldNames(checker.getTypeOfSymbol(p), FIELD_DEPTH - 1)]);
    const doc = docOf(typescript, checker, signature, symbol);
    return {
      path,
      ...(source.mode === 'host' ? { function: path } : {}),
      signature: `${path}${typeParams}(${params.join(', ')}): ${result}`,
      ...searchFields(module, path, doc, description ?? '', [...fields, ...fieldNames(returns, FIELD_DEPTH)]),
      doc,
      related: [...related.keys()],
    };
  };

  return { version: CATALOG_VERSION, types, functions: functions.map(entry) };
}

/** The doc comment of a function: its signature's (an overload's, a method's), else its symbol's; with its tags. */
function docOf(typescript: typeof ts, checker: ts.TypeChecker, signature: ts.Signature, symbol: ts.Symbol): string {
  const text = (parts: ts.SymbolDisplayPart[] | undefined) => typescript.displayPartsToString(parts).trim();
  const own = text(signature.getDocumentationComment(checker));
  const body = own || text(symbol.getDocumentationComment(checker));
  const tags = (own ? signature.getJsDocTags() : symbol.getJsDocTags(checker)).map((tag) => `@${tag.name} ${text(tag.text)}`.trim());
  return [body, ...tags].filter(Boolean).join('\n');
}
