/**
 * The `index.d.ts` of a capability: `declare module '@capabilities/<id>'` with a `<Fn>Params` interface per function,
 * the named types its schemas need, the capability object and every function exported alone.
 */
import type { CapabilityIR, Diagnostic, FunctionIR, ObjectSchema } from '@agent-spaces/capabilities';
import { CAPABILITY_PREFIX } from '@agent-spaces/capabilities';
import { jsDoc, propertyKey } from './escape.js';
import { SchemaTypes } from './schema-to-ts.js';
import { NameAllocator, isIdentifierName, typeName } from '../ir/names.js';
import { exportsAlone } from '../ir/normalize.js';

/** The generated `index.d.ts` text, the problems found while generating it, and the parts its signatures are made of. */
export interface DeclarationsResult {
  text: string;
  diagnostics: Diagnostic[];
  /** Per function, in order, the types of its signature as declared. */
  functions: FunctionTypes[];
  /** Every named declaration of the module, as written in it (JSDoc included), by name. */
  types: Map<string, string>;
}

/** The types of one function's signature in `index.d.ts`. */
interface FunctionTypes {
  fn: FunctionIR;
  /** Absent for a function without parameters (`fn()`). */
  params?: {
    optional: boolean;
    /** The declared type's name (`GetScheduleParams`). */
    type: string;
    /** The object type it declares, when it is an interface. */
    body?: string;
  };
  /** The result type inside `Promise<...>`. */
  result: string;
  /** The function's JSDoc lines. */
  doc: string[];
}

const INDENT = '  ';
const MEMBER_INDENT = '    ';
const DECLARATION = String.raw`export\s+(?:declare\s+)?(?:interface|type|class|enum|const|let|var|function)\s+([A-Za-z_$][\w$]*)`;
const DECLARED_NAME = new RegExp(String.raw`\b${DECLARATION}`, 'g');
/** A declaration at the top of the `declarations` block once it is indented into the module. */
const TOP_LEVEL_DECLARATION = new RegExp(`^${INDENT}${DECLARATION}`, 'gm');

/** True when the parameters take any value at all; a function without them is typed `fn()`. */
function hasParameters(schema: ObjectSchema): boolean {
  const s = schema as unknown as Record<string, unknown>;
  const properties = s.properties;
  if (typeof properties === 'object' && properties !== null && Object.keys(properties).length > 0) return true;
  if (Array.isArray(s.required) && s.required.length > 0) return true;
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return true;
  return ['patternProperties', 'anyOf', 'oneOf', 'allOf', '$ref'].some((k) => s[k] !== undefined);
}

/** True when a caller must pass some parameter (`required` lists one, or a property says `required: true`). */
function hasRequiredParameter(schema: ObjectSchema): boolean {
  if (Array.isArray(schema.required) && schema.required.length > 0) return true;
  const properties: Record<string, unknown> = schema.properties ?? {};
  return Object.values(properties).some((p) => typeof p === 'object' && p !== null && (p as { required?: unknown }).required === true);
}

function functionDoc(capability: CapabilityIR, fn: FunctionIR): string[] {
  const lines = fn.description ? [fn.description] : [];
  if (fn.requiresApproval || capability.config.requiresApproval) lines.push('Requires approval: the call waits until it is approved.');
  const properties: Record<string, unknown> = fn.parameters.properties ?? {};
  for (const [key, schema] of Object.entries(properties)) {
    const description = (schema as { description?: unknown } | undefined)?.description;
    if (typeof description !== 'string' || description.trim() === '') continue;
    const path = isIdentifierName(key) ? `params.${key}` : `params[${propertyKey(key)}]`;
    lines.push(`@param ${path} ${description.trim()}`);
  }
  const returns = (fn.returns as { description?: unknown } | undefined)?.description;
  if (typeof returns === 'string' && returns.trim() !== '') lines.push(`@returns ${returns.trim()}`);
  return lines;
}

/** The declarations of an indented `declarations` block by name, each from its JSDoc to the next declaration. */
function splitDeclarations(block: string): Map<string, string> {
  const starts = [...block.matchAll(TOP_LEVEL_DECLARATION)].map((match) => {
    const before = block.slice(0, match.index).trimEnd();
    return { name: match[1]!, at: before.endsWith('*/') ? before.lastIndexOf('/**') : match.index };
  });
  return new Map(starts.map(({ name, at }, i) => [name, block.slice(at, starts[i + 1]?.at).trim()]));
}

/** `text` trimmed, each of its lines indented by `indent` (blank lines left empty). */
export function indentBlock(text: string, indent: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : `${indent}${line}`))
    .join('\n');
}

/** Generates the `index.d.ts` of `capability`; schema problems come back as diagnostics pointing into its source. */
export function emitDeclarations(capability: CapabilityIR): DeclarationsResult {
  const names = new NameAllocator();
  for (const match of capability.declarations?.matchAll(DECLARED_NAME) ?? []) names.reserve(match[1]!);
  const types = new SchemaTypes(capability.source.file, names, INDENT);
  const members: string[] = [];
  const exports: string[] = [];
  const functions = capability.functions.map((fn, index): FunctionTypes => {
    const pointer = fn.pointer ?? `/functions/${index}`;
    const base = typeName(fn.name);
    let params: FunctionTypes['params'];
    if (hasParameters(fn.parameters)) {
      const type = types.declare({ schema: fn.parameters, pointer: `${pointer}/parameters` }, `${base}Params`, []);
      const body = types.declarations.find((d) => d.name === type)?.body;
      params = { optional: !hasRequiredParameter(fn.parameters), type, ...(body ? { body } : {}) };
    }
    const result =
      fn.returnsType ??
      (fn.returns === undefined
        ? 'unknown'
        : types.declareIfObject({ schema: fn.returns, pointer: `${pointer}/returns` }, `${base}Result`, MEMBER_INDENT));
    const signature = `${fn.name}(${params ? `params${params.optional ? '?' : ''}: ${params.type}` : ''}): Promise<${result}>;`;
    const doc = functionDoc(capability, fn);
    members.push(`${jsDoc(doc, MEMBER_INDENT)}${MEMBER_INDENT}${signature}\n`);
    if (exportsAlone(capability, fn)) exports.push(`${jsDoc(doc, INDENT)}${INDENT}export function ${signature}\n`);
    return { fn, ...(params ? { params } : {}), result, doc };
  });
  const declared = capability.declarations?.trim() ? indentBlock(capability.declarations, INDENT) : '';
  const sections = [
    ...(declared ? [`${declared}\n`] : []),
    ...types.declarations.map((d) => d.text),
    `${jsDoc(capability.description ? [capability.description] : [], INDENT)}${INDENT}export const ${capability.exportName}: {\n${members.join('')}${INDENT}};\n`,
    ...exports,
  ];
  const origin = capability.source.file.replace(/[\r\n]+/g, ' ');
  const text =
    `// Generated by @agent-spaces/compiler from ${origin}. Do not edit.\n` +
    `declare module '${CAPABILITY_PREFIX}${capability.id}' {\n${sections.join('\n')}}\n`;
  const named = new Map([...splitDeclarations(declared), ...types.declarations.map((d) => [d.name, d.text.trim()] as const)]);
  return { text, diagnostics: types.diagnostics, functions, types: named };
}
