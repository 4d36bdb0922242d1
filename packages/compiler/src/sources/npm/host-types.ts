/**
 * The functions a `host`-mode package exports, with their parameters' names and JSON Schemas derived from their types
 * (what the bridge validates calls against).
 */
import type { Diagnostic, JsonSchema } from '@agent-spaces/capabilities';
import type ts from 'typescript';
import { packageExports, type PackageExport } from './exports.js';

/** One parameter of a package function. */
interface PackageParam {
  name: string;
  schema: JsonSchema;
  optional: boolean;
}

/** One function of a package that can be called across the bridge. */
export interface PackageFunction extends PackageExport {
  description?: string;
  params: PackageParam[];
}

const MAX_DEPTH = 8;

/**
 * The functions `entry`'s module exports (only `exports` when given), in declaration order. A function whose
 * parameters cannot cross the bridge (a callback, a rest parameter) is left out with a warning; a type the schema
 * cannot say exactly (a class instance, a depth past 8) becomes `{}` with a warning naming the function and parameter.
 */
export function packageFunctions(
  typescript: typeof ts,
  program: ts.Program,
  entry: string,
  exports: readonly string[] | undefined,
  label: string,
): { functions: PackageFunction[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const warn = (message: string) => diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'warning', file: label, message });
  const exported = packageExports(typescript, program, entry, exports);
  if (!exported) return { functions: [], diagnostics: [{ code: 'INVALID_DEFINITION', severity: 'error', file: label, message: `${label}: its declarations are not a module` }] };
  const context: SchemaContext = { typescript, checker: program.getTypeChecker(), warn };
  for (const name of exported.classes) warn(`${name}: a class cannot be constructed across the bridge; it is left out`);
  const functions = exported.functions.flatMap((fn) => packageFunction(context, fn) ?? []);
  for (const name of exported.missing) {
    diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file: label, message: `${label}: exports names "${name}", which the package does not export` });
  }
  return { functions, diagnostics };
}

/** What deriving schemas from types needs: the TypeScript module, the program's checker, and where warnings go. */
interface SchemaContext {
  typescript: typeof ts;
  checker: ts.TypeChecker;
  warn: (message: string) => void;
}

/** `fn` with its parameters' names and schemas and its doc comment; undefined (warned) when it cannot cross the bridge. */
function packageFunction(context: SchemaContext, fn: PackageExport): PackageFunction | undefined {
  const { typescript, checker, warn } = context;
  const { path, symbol, signature } = fn;
  const params: PackageParam[] = [];
  for (const [index, parameter] of signature.getParameters().entries()) {
    const declaration = parameter.valueDeclaration as ts.ParameterDeclaration | undefined;
    if (declaration?.dotDotDotToken) {
      warn(`${path}: a rest parameter cannot cross the bridge; the function is left out`);
      return undefined;
    }
    const name = declaration && typescript.isIdentifier(declaration.name) ? declaration.name.text : `arg${index}`;
    const schema = typeSchema(context, checker.getTypeOfSymbol(parameter), `${path}(${name})`, 0, new Set());
    if (schema === undefined) {
      warn(`${path}: parameter ${name} takes a function, which cannot cross the bridge; the function is left out`);
      return undefined;
    }
    params.push({ name, schema, optional: declaration ? checker.isOptionalParameter(declaration) : false });
  }
  const description = typescript.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return { ...fn, params, ...(description ? { description } : {}) };
}

/**
 * The JSON Schema of `type` (at `where`, for warnings), `depth` levels down past the `seen` object types; undefined
 * when it takes a function.
 */
function typeSchema(context: SchemaContext, type: ts.Type, where: string, depth: number, seen: Set<ts.Type>): JsonSchema | undefined {
  const { typescript, checker, warn } = context;
  const flags = type.flags;
  const F = typescript.TypeFlags;
  if (flags & (F.Any | F.Unknown)) return {};
  if (flags & F.StringLiteral) return { type: 'string', const: (type as ts.StringLiteralType).value };
  if (flags & F.NumberLiteral) return { type: 'number', const: (type as ts.NumberLiteralType).value };
  if (flags & F.BooleanLiteral) return { type: 'boolean', const: checker.typeToString(type) === 'true' };
  if (flags & F.String) return { type: 'string' };
  if (flags & F.Number) return { type: 'number' };
  if (flags & F.Boolean) return { type: 'boolean' };
  if (flags & F.Null) return { type: 'null' };
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & (F.Undefined | F.Void)));
    if (members.length > 0 && members.every((t) => t.flags & F.BooleanLiteral)) return { type: 'boolean' };
    if (members.length > 0 && members.every((t) => t.flags & F.StringLiteral)) return { type: 'string', enum: members.map((t) => (t as ts.StringLiteralType).value) };
    const schemas = members.map((t) => typeSchema(context, t, where, depth + 1, seen));
    if (schemas.some((s) => s === undefined)) return undefined;
    return schemas.length === 1 ? schemas[0] : { anyOf: schemas as JsonSchema[] };
  }
  if (checker.getSignaturesOfType(type, typescript.SignatureKind.Call).length > 0) return undefined;
  if (!(flags & F.Object)) {
    warn(`${where}: the type ${checker.typeToString(type)} has no JSON Schema; it is not checked`);
    return {};
  }
  if (depth > MAX_DEPTH || seen.has(type)) {
    warn(`${where}: ${checker.typeToString(type)} is nested deeper than ${MAX_DEPTH} levels or refers to itself; below that it is not checked`);
    return {};
  }
  const inner = new Set(seen).add(type);
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const item = checker.getTypeArguments(type as ts.TypeReference)[0];
    const items = item && checker.isArrayType(type) ? typeSchema(context, item, where, depth + 1, inner) : {};
    return items === undefined ? undefined : { type: 'array', items };
  }
  if (type.getSymbol()?.flags && (type.getSymbol()!.flags & typescript.SymbolFlags.Class) !== 0) {
    warn(`${where}: the class ${checker.typeToString(type)} arrives as a plain object; it is not checked`);
    return {};
  }
  return objectSchema(context, type, where, depth, inner);
}

/** The schema of an object type: its data properties (methods left out) and its string index signature. */
function objectSchema(context: SchemaContext, type: ts.Type, where: string, depth: number, seen: Set<ts.Type>): JsonSchema | undefined {
  const { typescript, checker } = context;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    const propertyType = declaration ? checker.getTypeOfSymbolAtLocation(property, declaration) : checker.getDeclaredTypeOfSymbol(property);
    // Methods are not data: structured clone carries none, so they are not part of the schema.
    if (checker.getSignaturesOfType(propertyType, typescript.SignatureKind.Call).length > 0) continue;
    const schema = typeSchema(context, propertyType, `${where}.${property.name}`, depth + 1, seen);
    if (schema === undefined) return undefined;
    properties[property.name] = schema;
    if (!(property.flags & typescript.SymbolFlags.Optional)) required.push(property.name);
  }
  const index = checker.getIndexInfoOfType(type, typescript.IndexKind.String);
  const additional = index ? typeSchema(context, index.type, `${where}[key]`, depth + 1, seen) : undefined;
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), ...(additional ? { additionalProperties: additional } : {}) };
}
