/**
 * Normalization every source shares: schemas in one dialect (parameters always an object schema, draft 3
 * `required: true` moved into `required` arrays) and name checks across functions and capabilities.
 */
import { isRecord, type CapabilityIR, type Diagnostic, type FunctionIR, type JsonSchema, type ObjectSchema } from '@agent-spaces/capabilities';
import { PROXY_NAMES, isIdentifierName, isModuleId } from './names.js';

type SchemaObject = Record<string, unknown>;

const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SCHEMA_KEYWORDS = ['items', 'additionalItems', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'] as const;
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'] as const;

/**
 * A copy of `schema` with draft 3 `"required": true` on a property moved into its parent's `required` array
 * (and `"required": false` dropped), so validators and the emitter see one dialect. Anything else is kept as is.
 */
export function normalizeSchema<T>(schema: T): T {
  if (!isRecord(schema)) return schema;
  const out: SchemaObject = { ...schema };
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = out[keyword];
    if (!isRecord(map)) continue;
    out[keyword] = Object.fromEntries(Object.entries(map).map(([key, value]) => [key, normalizeSchema(value)]));
  }
  for (const keyword of SCHEMA_KEYWORDS) if (isRecord(out[keyword])) out[keyword] = normalizeSchema(out[keyword]);
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = out[keyword];
    if (Array.isArray(list)) out[keyword] = list.map((item: unknown) => normalizeSchema(item));
  }
  if (isRecord(out.properties)) {
    const required = Array.isArray(out.required) ? [...(out.required as unknown[])] : [];
    const properties: SchemaObject = {};
    for (const [key, value] of Object.entries(out.properties)) {
      if (isRecord(value) && typeof value.required === 'boolean') {
        const { required: flag, ...rest } = value;
        if (flag && !required.includes(key)) required.push(key);
        properties[key] = rest;
      } else {
        properties[key] = value;
      }
    }
    out.properties = properties;
    if (required.length > 0) out.required = required;
  }
  return out as T;
}

/** The parameters of a function as an object schema, or why they cannot be one (`must be ...`). */
export type ParametersResult = { ok: true; schema: ObjectSchema } | { ok: false; mustBe: string };

/**
 * Makes `parameters` an object schema: absent means no parameters (`{ type: 'object', properties: {} }`),
 * a schema with `properties` but no `type` gets `type: 'object'`; any other type is refused.
 */
export function normalizeParameters(parameters: unknown): ParametersResult {
  if (parameters === undefined || parameters === null) return { ok: true, schema: { type: 'object', properties: {} } };
  if (!isRecord(parameters)) return { ok: false, mustBe: 'must be a JSON Schema object' };
  if (parameters.type !== undefined && parameters.type !== 'object') {
    return { ok: false, mustBe: `must be an object schema (type "object"), not type ${JSON.stringify(parameters.type)}` };
  }
  return { ok: true, schema: normalizeSchema({ ...parameters, type: 'object' }) as ObjectSchema };
}

/** A result schema in the normalized dialect (see {@link normalizeSchema}); absent stays absent. */
export function normalizeReturns(returns: unknown): JsonSchema | undefined {
  return returns === undefined ? undefined : (normalizeSchema(returns) as JsonSchema);
}

function collision(file: string, pointer: string | undefined, message: string): Diagnostic {
  return { code: 'NAME_COLLISION', severity: 'error', file, ...(pointer !== undefined ? { pointer } : {}), message };
}

/**
 * Problems with the names of one capability: an id that is not kebab-case, an export name that is not an
 * identifier, two functions that became the same identifier; and a warning for each name renamed because the proxy
 * module cannot use it ({@link PROXY_NAMES}). A function named like the capability object is no problem: it is a
 * member of the object (`search.search()`) without an export of its own ({@link exportsAlone}).
 */
export function checkCapabilityNames(capability: CapabilityIR): Diagnostic[] {
  const { file } = capability.source;
  const diagnostics: Diagnostic[] = [];
  if (!isModuleId(capability.id)) {
    diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file, message: `module id ${JSON.stringify(capability.id)} must be kebab-case letters and digits` });
  }
  if (!isIdentifierName(capability.exportName)) {
    diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file, message: `export name ${JSON.stringify(capability.exportName)} is not an identifier` });
  }
  const renamed = PROXY_NAMES.get(capability.exportName.slice(0, -1));
  if (renamed && capability.exportName.endsWith('_')) {
    diagnostics.push({ code: 'NAME_COLLISION', severity: 'warning', file, message: `capability ${JSON.stringify(capability.sourceName)} is exported as ${capability.exportName}: ${renamed}` });
  }
  const seen = new Map<string, { sourceName: string; pointer: string }>();
  capability.functions.forEach((fn, index) => {
    const pointer = fn.pointer ?? `/functions/${index}`;
    const why = fn.name.endsWith('_') ? PROXY_NAMES.get(fn.name.slice(0, -1)) : undefined;
    if (why) diagnostics.push({ code: 'NAME_COLLISION', severity: 'warning', file, pointer, message: `function ${JSON.stringify(fn.sourceName)} is exported as ${fn.name}: ${why}` });
    // A handler module exports each handler under its source name: an export named then makes the module a thenable.
    if (fn.sourceName === 'then' && capability.executor.kind === 'module' && capability.executor.export === undefined) {
      diagnostics.push(collision(file, pointer, 'function "then" cannot be a handler module export: the module would be a thenable, which import() unwraps; rename the function'));
    }
    const earlier = seen.get(fn.name);
    if (earlier) {
      const why = `the module has one member and one export per name, so one of them could not be called`;
      diagnostics.push(collision(file, pointer, `functions ${JSON.stringify(earlier.sourceName)} (#${earlier.pointer}) and ${JSON.stringify(fn.sourceName)} (#${pointer}) both become ${fn.name}: ${why}; rename one`));
    }
    seen.set(fn.name, { sourceName: fn.sourceName, pointer });
  });
  return diagnostics;
}

/**
 * Capabilities that claim a module id another source already has. `taken` maps ids kept from earlier builds
 * (unchanged sources) to their files; among new capabilities every claimant of a shared id gets a diagnostic
 * naming the others, so the result never depends on the order files were read.
 */
export function findIdCollisions(capabilities: readonly CapabilityIR[], taken: ReadonlyMap<string, string>): Map<CapabilityIR, Diagnostic> {
  const byId = new Map<string, CapabilityIR[]>();
  for (const capability of capabilities) byId.set(capability.id, [...(byId.get(capability.id) ?? []), capability]);
  const found = new Map<CapabilityIR, Diagnostic>();
  for (const [id, claimants] of byId) {
    const kept = taken.get(id);
    for (const capability of claimants) {
      const others = [...(kept !== undefined ? [kept] : []), ...claimants.filter((c) => c !== capability).map((c) => c.source.file)];
      if (others.length === 0) continue;
      const message = `module id "${id}" of ${capability.source.file} is also the id of ${others.join(', ')}`;
      found.set(capability, collision(capability.source.file, undefined, message));
    }
  }
  return found;
}

/**
 * True when `fn` is also exported alone from the capability's module (`export const getWeather`), beside the
 * capability object: every function but one named like the object itself (`search` of a `search.json`), which is
 * reached as `search.search()` only, since the module has one export per name.
 */
export function exportsAlone(capability: Pick<CapabilityIR, 'exportName'>, fn: Pick<FunctionIR, 'name'>): boolean {
  return fn.name !== capability.exportName;
}
