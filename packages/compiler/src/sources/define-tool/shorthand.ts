import {
  RATE_PERIODS,
  isPlainObject,
  isRatePeriod,
  isRecord,
  type CapabilityConfig,
  type CompileErrorCode,
  type JsonSchema,
  type ObjectSchema,
} from '@agent-spaces/capabilities';

/** Records one problem at a JSON pointer inside the definition (`/functions/get/parameters/id/type`). */
export type Report = (code: CompileErrorCode, pointer: string, message: string) => void;

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
const UNTYPED_KEYWORDS = ['enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref'];

/** Appends one JSON pointer segment, escaping `~` and `/` (RFC 6901). */
export function pointerJoin(pointer: string, segment: string | number): string {
  return `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * Converts `defineTool()` shorthand parameters (`{ id: { type: 'string', required: true } }`) into the JSON Schema
 * of the params object. `required: true` / `optional: true` become the object's `required` list, also inside nested
 * `properties`; everything else is JSON Schema and is kept. Problems go to `report`; the result is still usable.
 */
export function paramsToSchema(params: unknown, pointer: string, report: Report): ObjectSchema {
  if (params === undefined || params === null) return { type: 'object', properties: {} };
  if (!isRecord(params)) {
    report('INVALID_DEFINITION', pointer, 'parameters must be an object of named parameters');
    return { type: 'object', properties: {} };
  }
  const { properties, required } = convertProperties(params, pointer, report, true);
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

function convertProperties(
  entries: Record<string, unknown>,
  pointer: string,
  report: Report,
  topLevel: boolean,
): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const at = pointerJoin(pointer, name);
    if (!isRecord(entry)) {
      report('INVALID_DEFINITION', at, `parameter "${name}" must be an object like { type: 'string' }`);
      continue;
    }
    const { required: isRequired, optional, ...schema } = entry;
    if (isRequired === true) {
      if (optional === true) report('INVALID_DEFINITION', at, `"${name}" cannot be both required and optional`);
      required.push(name);
    } else if (isRequired !== undefined && isRequired !== false && !(Array.isArray(isRequired) && !topLevel)) {
      report('INVALID_DEFINITION', pointerJoin(at, 'required'), 'required must be true or false');
    }
    if (optional !== undefined && typeof optional !== 'boolean') {
      report('INVALID_DEFINITION', pointerJoin(at, 'optional'), 'optional must be true or false');
    }
    if (topLevel && schema.type === undefined && !UNTYPED_KEYWORDS.some((key) => key in schema)) {
      report('UNKNOWN_TYPE', pointerJoin(at, 'type'), `parameter "${name}" has no type`);
    }
    // A nested object's own `required: [...]` list is JSON Schema and stays on it.
    properties[name] = convertSchema(Array.isArray(isRequired) ? { ...schema, required: isRequired } : schema, at, report);
  }
  return { properties, required };
}

function convertSchema(schema: Record<string, unknown>, pointer: string, report: Report): JsonSchema {
  const out: Record<string, unknown> = { ...schema };
  checkType(schema.type, pointerJoin(pointer, 'type'), report);
  if (schema.required !== undefined && !Array.isArray(schema.required)) {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'required'), 'required here must be a list of property names');
    delete out.required;
  }
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'enum'), 'enum must be a non-empty array');
  }
  if (schema.properties !== undefined) {
    if (isRecord(schema.properties)) {
      const nested = convertProperties(schema.properties, pointerJoin(pointer, 'properties'), report, false);
      out.properties = nested.properties;
      const own = Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : [];
      const all = [...new Set([...own, ...nested.required])];
      if (all.length > 0) out.required = all;
    } else {
      report('INVALID_DEFINITION', pointerJoin(pointer, 'properties'), 'properties must be an object');
    }
  }
  if (Array.isArray(schema.items)) {
    out.items = schema.items.map((item, i) => nestedSchema(item, pointerJoin(pointerJoin(pointer, 'items'), i), report));
  } else if (schema.items !== undefined && typeof schema.items !== 'boolean') {
    out.items = nestedSchema(schema.items, pointerJoin(pointer, 'items'), report);
  }
  if (isRecord(schema.additionalProperties)) {
    out.additionalProperties = convertSchema(schema.additionalProperties, pointerJoin(pointer, 'additionalProperties'), report);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (list === undefined) continue;
    if (Array.isArray(list)) out[key] = list.map((item, i) => nestedSchema(item, pointerJoin(pointerJoin(pointer, key), i), report));
    else report('INVALID_DEFINITION', pointerJoin(pointer, key), `${key} must be an array`);
  }
  for (const [key, value] of Object.entries(out)) {
    const bad = findNonJson(value, pointerJoin(pointer, key));
    if (bad) report('INVALID_DEFINITION', bad, 'must be plain JSON data (no functions, symbols, bigints or undefined)');
  }
  return out as JsonSchema;
}

function nestedSchema(value: unknown, pointer: string, report: Report): JsonSchema {
  if (isRecord(value)) return convertSchema(value, pointer, report);
  report('INVALID_DEFINITION', pointer, 'must be a schema object');
  return {};
}

function checkType(type: unknown, pointer: string, report: Report): void {
  if (type === undefined) return;
  const names = Array.isArray(type) ? type : [type];
  for (const name of names) {
    if (typeof name !== 'string' || !TYPE_NAMES.has(name)) {
      report('UNKNOWN_TYPE', pointer, `unknown type ${JSON.stringify(name) ?? String(name)} (expected one of ${[...TYPE_NAMES].join(', ')})`);
      return;
    }
  }
}

function findNonJson(value: unknown, pointer: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : pointer;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const bad = findNonJson(item, pointerJoin(pointer, i));
      if (bad) return bad;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const bad = findNonJson(item, pointerJoin(pointer, key));
      if (bad) return bad;
    }
    return undefined;
  }
  return pointer;
}

/** Validates a definition's `config` (`requiresApproval`, `rateLimit`) and returns a copy of it. */
export function readConfig(config: unknown, pointer: string, report: Report): CapabilityConfig {
  if (config === undefined) return {};
  if (!isRecord(config)) {
    report('INVALID_DEFINITION', pointer, 'config must be an object');
    return {};
  }
  const out: CapabilityConfig = {};
  for (const [key, value] of Object.entries(config)) {
    const at = pointerJoin(pointer, key);
    if (key === 'requiresApproval') {
      if (typeof value === 'boolean') out.requiresApproval = value;
      else report('INVALID_DEFINITION', at, 'requiresApproval must be true or false');
    } else if (key === 'rateLimit') {
      const rateLimit = readRateLimit(value, at, report);
      if (rateLimit) out.rateLimit = rateLimit;
    } else {
      report('INVALID_DEFINITION', at, `unknown config key "${key}" (known: requiresApproval, rateLimit)`);
    }
  }
  return out;
}

function readRateLimit(value: unknown, pointer: string, report: Report): CapabilityConfig['rateLimit'] {
  if (!isRecord(value)) {
    report('INVALID_DEFINITION', pointer, 'rateLimit must be { requests, period }');
    return undefined;
  }
  const { requests, period } = value;
  let ok = true;
  if (typeof requests !== 'number' || !Number.isInteger(requests) || requests < 1) {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'requests'), 'requests must be a positive integer');
    ok = false;
  }
  const goodPeriod = isRatePeriod(period);
  if (!goodPeriod) {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'period'), `period must be one of ${RATE_PERIODS.join(', ')} or a positive number`);
  }
  const { per } = value;
  if (per !== undefined && per !== 'space' && per !== 'user') {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'per'), 'per must be "space" or "user"');
    ok = false;
  }
  return ok && goodPeriod ? { requests: requests as number, period, ...(per === 'user' ? { per: 'user' as const } : {}) } : undefined;
}
