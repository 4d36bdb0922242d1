import {
  isRecord,
  type FunctionIR,
  type JsonSchema,
  type ObjectSchema,
  type OpenApiOperationSpec,
  type OpenApiParamLocation,
  type OpenApiParamSpec,
} from '@agent-spaces/capabilities';
import { NameAllocator, identifier } from '../../ir/names.js';
import type { OpenApiSourceConfig } from './config.js';
import type { LoadedSpec } from './load.js';
import { escapePointer, type SchemaConverter, type SchemaReport } from './schema.js';

/** HTTP methods of a path item, in the order OpenAPI lists them. */
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Methods that change nothing on the server: they need no approval by default. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOCATIONS = new Set<OpenApiParamLocation>(['path', 'query', 'header', 'cookie']);
/** Swagger 2.0 `collectionFormat` → OpenAPI 3 style and explode. */
const COLLECTION_FORMATS: Record<string, { style?: string; explode: boolean }> = {
  csv: { explode: false },
  ssv: { style: 'spaceDelimited', explode: false },
  pipes: { style: 'pipeDelimited', explode: false },
  multi: { explode: true },
};
/** Keywords that, on a Swagger 2.0 parameter, describe its value (they form its schema). */
const PARAM_SCHEMA_KEYS = [
  'type', 'format', 'items', 'enum', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems', 'multipleOf', 'x-nullable',
];

/** The functions of one spec and, by function name, how each is sent. */
export interface OperationsResult {
  functions: FunctionIR[];
  operations: Record<string, OpenApiOperationSpec>;
}

/**
 * Turns every operation of `spec` into a function: named from `operationId` (else method + path), collisions
 * suffixed `2`, `3` in spec order; parameters and the JSON body merged into one params object; the first 2xx (else
 * `default`) JSON response as the result. Operations with a multipart, form or binary body are refused with an
 * `UNSUPPORTED_OPERATION` warning each.
 */
export function readOperations(spec: LoadedSpec, source: OpenApiSourceConfig, converter: SchemaConverter, report: SchemaReport): OperationsResult {
  const names = new NameAllocator();
  const result: OperationsResult = { functions: [], operations: {} };
  const deref = (value: unknown, pointer: string): unknown => follow(value, spec, pointer, report);
  const paths = isRecord(spec.document.paths) ? spec.document.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemPointer = `/paths/${escapePointer(path)}`;
    const item = deref(rawItem, itemPointer);
    if (!isRecord(item)) continue;
    for (const [method, rawOperation] of Object.entries(item)) {
      if (!METHODS.has(method) || !isRecord(rawOperation)) continue;
      const pointer = `${itemPointer}/${method}`;
      const read = readOperation({ spec, converter, report, deref }, path, method.toUpperCase(), item, rawOperation, pointer);
      if (!read) continue;
      const base = typeof rawOperation.operationId === 'string' && identifier(rawOperation.operationId) !== '_'
        ? identifier(rawOperation.operationId)
        : methodPathName(method, path);
      const name = names.allocate(base);
      if (name !== base) {
        report({ code: 'NAME_COLLISION', severity: 'warning', pointer, message: `${read.fn.sourceName}: function name "${base}" is taken; named "${name}"` });
      }
      result.functions.push({ ...read.fn, name, ...approval(source, name, read.fn.sourceName, read.operation) });
      result.operations[name] = read.operation;
    }
  }
  return result;
}

interface Reader {
  spec: LoadedSpec;
  converter: SchemaConverter;
  report: SchemaReport;
  deref: (value: unknown, pointer: string) => unknown;
}

function readOperation(
  reader: Reader,
  path: string,
  method: string,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
  pointer: string,
): { fn: Omit<FunctionIR, 'name'>; operation: OpenApiOperationSpec } | undefined {
  const { spec, converter, report } = reader;
  const sourceName = typeof operation.operationId === 'string' ? operation.operationId : `${method} ${path}`;
  const refuse = (why: string): undefined => {
    const label = sourceName === `${method} ${path}` ? sourceName : `${sourceName} (${method} ${path})`;
    report({ code: 'UNSUPPORTED_OPERATION', severity: 'warning', pointer, message: `${label} is skipped: ${why}` });
    return undefined;
  };
  const refs = new Set<string>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const params: OpenApiParamSpec[] = [];
  const keys = new NameAllocator();

  let bodyParam: { schema: unknown; required: boolean; pointer: string } | undefined;
  for (const { value, at } of mergedParameters(reader, item, operation, pointer)) {
    const where = value.in;
    if (where === 'formData') return refuse(`form parameter "${String(value.name)}" (formData and file uploads are not supported)`);
    if (where === 'body') {
      bodyParam = { schema: value.schema, required: value.required === true, pointer: `${at}/schema` };
      continue;
    }
    if (typeof value.name !== 'string' || !LOCATIONS.has(where as OpenApiParamLocation)) {
      report({ code: 'INVALID_DEFINITION', severity: 'warning', pointer: at, message: `parameter at ${at} has no name or an unknown "in"; ignored` });
      continue;
    }
    const location = where as OpenApiParamLocation;
    const key = keys.allocate(properties[value.name] === undefined ? value.name : identifier(`${location} ${value.name}`));
    const schema = converter.convert(parameterSchema(value, spec), at, refs);
    properties[key] = typeof value.description === 'string' && !('description' in schema) ? { ...schema, description: value.description } : schema;
    if (location === 'path' || value.required === true) required.push(key);
    params.push({ key, name: value.name, in: location, ...serialization(value, location, spec) });
  }

  if (bodyParam && !consumesJson(spec, operation)) return refuse('it consumes no JSON media type');
  const body = bodyParam ?? jsonRequestBody(reader, operation, pointer);
  if (body === 'unsupported') return refuse(`its request body is not JSON (${mediaTypes(reader, operation, pointer).join(', ')})`);
  let bodySpec: OpenApiOperationSpec['body'];
  if (body) {
    const target = resolveSchema(reader, body.schema, body.pointer);
    const flat = isFlattenable(target, properties);
    if (flat) {
      const converted = converter.convert(target, body.pointer, refs) as ObjectSchema;
      for (const [key, schema] of Object.entries(converted.properties ?? {})) {
        keys.reserve(key);
        properties[key] = schema;
      }
      // The server sets read-only fields: a request never has to send them, even when the schema requires them.
      const readOnly = (key: string) => (converted.properties?.[key] as { readOnly?: unknown } | undefined)?.readOnly === true;
      // An optional body (OpenAPI's default, as in seed 003's spec) with required fields is sent whenever it is called.
      required.push(...(converted.required ?? []).filter((key) => !readOnly(key)));
      bodySpec = { mode: 'flat', required: body.required };
    } else {
      const key = keys.allocate(properties.body === undefined ? 'body' : 'requestBody');
      properties[key] = converter.convert(body.schema, body.pointer, refs);
      if (body.required) required.push(key);
      bodySpec = { mode: 'field', key, required: body.required };
    }
  }

  const parameters = converter.root<ObjectSchema>({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) }, refs);
  const returns = responseSchema(reader, operation, pointer);
  const description = [operation.summary, operation.description].filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  return {
    fn: {
      sourceName,
      pointer,
      ...(description.length > 0 ? { description: [...new Set(description.map((t) => t.trim()))].join('\n\n') } : {}),
      parameters,
      ...(returns ? { returns } : {}),
    },
    operation: { method, path, params, ...(bodySpec ? { body: bodySpec } : {}) },
  };
}

/** Path-level parameters overridden by operation-level ones with the same name and location. */
function mergedParameters(reader: Reader, item: Record<string, unknown>, operation: Record<string, unknown>, pointer: string) {
  const merged = new Map<string, { value: Record<string, unknown>; at: string }>();
  const add = (list: unknown, at: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, i) => {
      const value = reader.deref(raw, `${at}/${i}`);
      if (isRecord(value)) merged.set(`${String(value.in)}:${String(value.name)}`, { value, at: `${at}/${i}` });
    });
  };
  add(item.parameters, pointer.replace(/\/[^/]+$/, '/parameters'));
  add(operation.parameters, `${pointer}/parameters`);
  return [...merged.values()];
}

/** The schema of a parameter: OpenAPI 3's `schema` (or `content`'s), Swagger 2.0's inline keywords. */
function parameterSchema(param: Record<string, unknown>, spec: LoadedSpec): unknown {
  if (spec.version !== '2.0') {
    if (param.schema !== undefined) return param.schema;
    const content = isRecord(param.content) ? Object.values(param.content)[0] : undefined;
    return isRecord(content) ? content.schema : {};
  }
  return Object.fromEntries(PARAM_SCHEMA_KEYS.filter((k) => param[k] !== undefined).map((k) => [k, param[k]]));
}

function serialization(param: Record<string, unknown>, location: OpenApiParamLocation, spec: LoadedSpec): Pick<OpenApiParamSpec, 'style' | 'explode'> {
  if (spec.version === '2.0') {
    const format = COLLECTION_FORMATS[typeof param.collectionFormat === 'string' ? param.collectionFormat : 'csv'] ?? COLLECTION_FORMATS.csv!;
    return location === 'query' ? format : {};
  }
  const style = typeof param.style === 'string' ? param.style : undefined;
  const explode = typeof param.explode === 'boolean' ? param.explode : undefined;
  return { ...(style ? { style } : {}), ...(explode !== undefined ? { explode } : {}) };
}

/** The JSON request body, `'unsupported'` when the body exists but has no JSON media type, undefined when none. */
function jsonRequestBody(reader: Reader, operation: Record<string, unknown>, pointer: string) {
  if (reader.spec.version === '2.0' || operation.requestBody === undefined) return undefined;
  const body = reader.deref(operation.requestBody, `${pointer}/requestBody`);
  if (!isRecord(body) || !isRecord(body.content)) return undefined;
  const type = Object.keys(body.content).find(isJsonMediaType);
  if (type === undefined) return 'unsupported' as const;
  const media = body.content[type];
  return {
    schema: isRecord(media) ? media.schema : undefined,
    required: body.required === true,
    pointer: `${pointer}/requestBody/content/${escapePointer(type)}/schema`,
  };
}

function mediaTypes(reader: Reader, operation: Record<string, unknown>, pointer: string): string[] {
  const body = reader.deref(operation.requestBody, `${pointer}/requestBody`);
  return isRecord(body) && isRecord(body.content) ? Object.keys(body.content) : [];
}

/**
 * The one flattening rule (docs/openapi.md "Operations → functions"): a JSON body is flattened into the params when it
 * is a plain object schema with `properties` (`type: object` or no `type`; no `allOf`/`anyOf`/`oneOf`/`not`, no
 * `patternProperties`, no schema-valued `additionalProperties`, not `nullable`) and none of its fields is named like a
 * path, query, header or cookie parameter. Any other body is one `body` field.
 */
function isFlattenable(schema: unknown, params: Record<string, JsonSchema>): boolean {
  if (!isRecord(schema) || !isRecord(schema.properties)) return false;
  if (schema.type !== undefined && schema.type !== 'object') return false;
  if (['allOf', 'anyOf', 'oneOf', 'not', '$ref', 'patternProperties', 'nullable'].some((k) => schema[k] !== undefined)) return false;
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== 'boolean') return false;
  return Object.keys(schema.properties).every((key) => !Object.hasOwn(params, key));
}

/** The result schema: the first of 200, 201, other 2xx, 2XX, else `default`; JSON content, or text as `string`. */
function responseSchema(reader: Reader, operation: Record<string, unknown>, pointer: string): JsonSchema | undefined {
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const codes = Object.keys(responses);
  const success = ['200', '201', ...codes.filter((c) => /^2\d\d$/.test(c) && c !== '200' && c !== '201').sort(), '2XX', '2xx'];
  const code = success.find((c) => Object.hasOwn(responses, c)) ?? (Object.hasOwn(responses, 'default') ? 'default' : undefined);
  if (code === undefined) return undefined;
  const at = `${pointer}/responses/${code}`;
  const response = reader.deref(responses[code], at);
  if (!isRecord(response)) return undefined;
  const refs = new Set<string>();
  if (reader.spec.version === '2.0') {
    const produces = operation.produces ?? reader.spec.document.produces;
    const json = !Array.isArray(produces) || produces.some((t) => typeof t === 'string' && isJsonMediaType(t));
    if (response.schema === undefined || !json) return undefined;
    return reader.converter.root(reader.converter.convert(response.schema, `${at}/schema`, refs), refs);
  }
  const content = isRecord(response.content) ? response.content : {};
  const type = Object.keys(content).find(isJsonMediaType);
  const media = type === undefined ? undefined : content[type];
  if (isRecord(media) && media.schema !== undefined) {
    return reader.converter.root(reader.converter.convert(media.schema, `${at}/content/${escapePointer(type!)}/schema`, refs), refs);
  }
  return Object.keys(content).some((t) => t.startsWith('text/')) ? { type: 'string' } : undefined;
}

/** Follows `$ref`s (parameters, bodies, responses, path items) to the object they name. */
function follow(value: unknown, spec: LoadedSpec, pointer: string, report: SchemaReport): unknown {
  let current = value;
  for (let hops = 0; isRecord(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    let next: unknown;
    try {
      next = hops < 32 ? spec.resolve(ref) : undefined;
    } catch {
      next = undefined;
    }
    if (next === undefined) {
      report({ code: 'BAD_REF', severity: 'warning', pointer, message: `cannot resolve $ref "${ref}" at ${pointer}` });
      return undefined;
    }
    current = next;
  }
  return current;
}

/** The schema a body `$ref` chain ends at, for deciding whether to flatten it. */
function resolveSchema(reader: Reader, schema: unknown, pointer: string): unknown {
  return isRecord(schema) && typeof schema.$ref === 'string' ? reader.deref(schema, pointer) : schema;
}

/** Swagger 2.0: true when the operation (or the spec) accepts JSON, or says nothing. */
function consumesJson(spec: LoadedSpec, operation: Record<string, unknown>): boolean {
  const consumes = operation.consumes ?? spec.document.consumes;
  return !Array.isArray(consumes) || consumes.length === 0 || consumes.some((t) => typeof t === 'string' && isJsonMediaType(t));
}

function isJsonMediaType(type: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json\b/i.test(type) || type === '*/*';
}

/** `GET /users/{id}/posts` → `getUsersByIdPosts`, `GET /` → `getRoot`. */
function methodPathName(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/\{([^}]*)\}/g, ' by $1 '));
  return identifier([method, ...(words.length > 0 ? words : ['root'])].join(' '));
}

function approval(source: OpenApiSourceConfig, name: string, sourceName: string, operation: OpenApiOperationSpec): { requiresApproval: boolean } {
  const setting = source.requiresApproval;
  if (typeof setting === 'boolean') return { requiresApproval: setting };
  for (const key of [name, sourceName, `${operation.method} ${operation.path}`]) {
    if (setting && Object.hasOwn(setting, key)) return { requiresApproval: setting[key]! };
  }
  return { requiresApproval: !SAFE_METHODS.has(operation.method) };
}
