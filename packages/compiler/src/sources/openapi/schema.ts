import { isRecord, type Diagnostic, type JsonSchema } from '@agent-spaces/capabilities';

/** JSON Schema keywords whose value is one subschema. */
const SUBSCHEMA = ['not', 'additionalItems', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAP = ['properties', 'patternProperties', 'dependentSchemas'];
/** Keywords copied as they are. Everything else (`xml`, `externalDocs`, `x-*`, `nullable`) is dropped. */
const PLAIN = [
  'title', 'description', 'default', 'examples', 'const', 'enum', 'format', 'pattern', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems',
  'minProperties', 'maxProperties', 'deprecated', 'readOnly', 'writeOnly', 'contentMediaType', 'contentEncoding',
];
const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);

/** Receives the converter's diagnostics; the caller fills in the file (severity defaults to `error`). */
export type SchemaReport = (diagnostic: Omit<Diagnostic, 'file' | 'severity'> & { severity?: Diagnostic['severity'] }) => void;

/** The draft the bridge validates OpenAPI 3.1 schemas with (3.1 schemas are JSON Schema 2020-12). */
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * Turns OpenAPI schemas into JSON Schema. Every `$ref` becomes a reference into `$defs` (a component schema keeps its
 * name: `#/components/schemas/Pet` and Swagger's `#/definitions/Pet` become `#/$defs/Pet`), so circular references stay
 * named types instead of being expanded. {@link root} attaches the definitions a schema needs.
 */
export class SchemaConverter {
  readonly #resolve: (ref: string) => unknown;
  readonly #report: SchemaReport;
  readonly #draft2020: boolean;
  /** `$ref` string → definition name. */
  readonly #names = new Map<string, string>();
  readonly #defs = new Map<string, JsonSchema>();
  /** Definition name → names it refers to directly. */
  readonly #deps = new Map<string, Set<string>>();

  constructor(options: {
    resolve: (ref: string) => unknown;
    report: SchemaReport;
    /** OpenAPI 3.1: mark roots as 2020-12. */
    draft2020: boolean;
  }) {
    this.#resolve = options.resolve;
    this.#report = options.report;
    this.#draft2020 = options.draft2020;
  }

  /** Converts one schema found at `pointer` (for diagnostics); the result may refer to `#/$defs/...`. */
  convert(schema: unknown, pointer: string, refs: Set<string> = new Set()): JsonSchema {
    if (schema === true || schema === undefined) return {};
    if (schema === false) return { not: {} };
    if (!isRecord(schema)) {
      this.#report({ code: 'INVALID_DEFINITION', pointer, message: `schema at ${pointer} is not an object` });
      return {};
    }
    if (typeof schema.$ref === 'string') {
      const name = this.#define(schema.$ref, pointer);
      refs.add(name);
      const out: Record<string, unknown> = { $ref: `#/$defs/${escapePointer(name)}` };
      if (typeof schema.description === 'string') out.description = schema.description;
      return out as JsonSchema;
    }

    const out: Record<string, unknown> = {};
    for (const key of PLAIN) if (schema[key] !== undefined) out[key] = schema[key];
    if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
    if (Array.isArray(schema.type)) out.type = schema.type.filter((t) => TYPE_NAMES.has(t as string));
    else if (typeof schema.type === 'string' && TYPE_NAMES.has(schema.type)) out.type = schema.type;
    else if (schema.type === 'file') {
      this.#report({ code: 'UNKNOWN_TYPE', severity: 'warning', pointer, message: `type "file" at ${pointer} is not JSON; typed as unknown` });
    }
    if (Array.isArray(schema.required)) out.required = schema.required.filter((r) => typeof r === 'string');

    const child = (value: unknown, at: string) => this.convert(value, at, refs);
    for (const key of SUBSCHEMA) if (schema[key] !== undefined) out[key] = child(schema[key], `${pointer}/${key}`);
    for (const key of SUBSCHEMA_LIST) {
      const list = schema[key];
      if (Array.isArray(list)) out[key] = list.map((item, i) => child(item, `${pointer}/${key}/${i}`));
    }
    for (const key of SUBSCHEMA_MAP) {
      const map = schema[key];
      if (isRecord(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, child(v, `${pointer}/${key}/${escapePointer(k)}`)]));
    }
    if (Array.isArray(schema.items)) out.items = schema.items.map((item, i) => child(item, `${pointer}/items/${i}`));
    else if (schema.items !== undefined) out.items = child(schema.items, `${pointer}/items`);
    if (typeof schema.additionalProperties === 'boolean') out.additionalProperties = schema.additionalProperties;
    else if (schema.additionalProperties !== undefined) out.additionalProperties = child(schema.additionalProperties, `${pointer}/additionalProperties`);
    if (isRecord(schema.discriminator)) out.discriminator = this.#discriminator(schema.discriminator, pointer, refs);

    const nullable = schema.nullable === true || schema['x-nullable'] === true;
    return (nullable ? withNull(out) : out) as JsonSchema;
  }

  /** A root schema (a function's parameters or result): `schema` plus the `$defs` it reaches, directly or not. */
  root<S extends JsonSchema>(schema: S, refs: ReadonlySet<string>): S {
    const reached = new Set<string>();
    const stack = [...refs];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      stack.push(...(this.#deps.get(name) ?? []));
    }
    const out: Record<string, unknown> = this.#draft2020 ? { $schema: DRAFT_2020_12, ...schema } : { ...schema };
    if (reached.size > 0) out.$defs = Object.fromEntries([...reached].sort().map((name) => [name, this.#defs.get(name)!]));
    return out as S;
  }

  /** Registers the definition `ref` points to (converting it once) and returns its name. */
  #define(ref: string, pointer: string): string {
    const known = this.#names.get(ref);
    if (known !== undefined) return known;
    const name = this.#uniqueName(definitionName(ref));
    this.#names.set(ref, name);
    const deps = new Set<string>();
    this.#deps.set(name, deps);
    // Placeholder first: a circular reference met while converting finds the name and stops there.
    this.#defs.set(name, {});
    let target: unknown;
    try {
      target = ref.startsWith('#') ? this.#resolve(ref) : undefined;
    } catch {
      target = undefined;
    }
    if (target === undefined) {
      this.#report({ code: 'BAD_REF', pointer, message: `cannot resolve $ref "${ref}" at ${pointer}; typed as unknown` });
      this.#defs.set(name, { description: `Unresolved reference ${ref}` });
      return name;
    }
    this.#defs.set(name, this.convert(target, ref.slice(1), deps));
    return name;
  }

  #discriminator(value: Record<string, unknown>, pointer: string, refs: Set<string>): Record<string, unknown> {
    const out: Record<string, unknown> = { propertyName: value.propertyName };
    if (isRecord(value.mapping)) {
      out.mapping = Object.fromEntries(
        Object.entries(value.mapping).map(([key, target]) => {
          if (typeof target !== 'string' || !target.startsWith('#')) return [key, target];
          const name = this.#define(target, `${pointer}/discriminator/mapping/${escapePointer(key)}`);
          refs.add(name);
          return [key, `#/$defs/${escapePointer(name)}`];
        }),
      );
    }
    return out;
  }

  #uniqueName(base: string): string {
    let name = base;
    for (let n = 2; this.#defs.has(name); n++) name = `${base}${n}`;
    return name;
  }
}

/** `#/components/schemas/Pet` and `#/definitions/Pet` → `Pet`; any other pointer → its last segments joined by `_`. */
function definitionName(ref: string): string {
  const segments = ref.replace(/^[^#]*#\/?/, '').split('/').map(unescapePointer);
  const named =
    (segments.length === 3 && segments[0] === 'components' && segments[1] === 'schemas') ||
    (segments.length === 2 && segments[0] === 'definitions');
  const raw = named ? segments.at(-1)! : segments.slice(-3).join('_');
  return raw.replace(/[^A-Za-z0-9_$-]+/g, '_') || 'Schema';
}

function withNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.type)) {
    if (!schema.type.includes('null')) schema.type = [...schema.type, 'null'];
  } else {
    return { anyOf: [schema, { type: 'null' }] };
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  return schema;
}

/** Escapes one JSON pointer segment. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
