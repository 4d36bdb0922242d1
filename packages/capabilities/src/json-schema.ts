/**
 * JSON Schema types as a discriminated union on `type` (seed 000, "JSON Schema Types").
 * `JsonSchema` also admits the composition keywords real tool schemas use (`$ref`, `anyOf`, `oneOf`,
 * `allOf`, `const`, `enum`, type arrays), so one type describes everything the compiler reads.
 */

/** Keywords every schema may carry. */
export interface SchemaBase {
  title?: string;
  description?: string;
  $schema?: string;
  $id?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  default?: unknown;
  examples?: unknown[];
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
}

/** `{ type: 'string' }` */
export interface StringSchema extends SchemaBase {
  type: 'string';
  enum?: string[];
  const?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

/** `{ type: 'number' | 'integer' }` */
export interface NumericSchema extends SchemaBase {
  type: 'number' | 'integer';
  enum?: number[];
  const?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  multipleOf?: number;
}

/** `{ type: 'boolean' }` */
export interface BooleanSchema extends SchemaBase {
  type: 'boolean';
  const?: boolean;
}

/** `{ type: 'null' }` */
export interface NullSchema extends SchemaBase {
  type: 'null';
}

/** `{ type: 'array' }`; `items` as an array (or `prefixItems`) describes a tuple. */
export interface ArraySchema extends SchemaBase {
  type: 'array';
  items?: JsonSchema | JsonSchema[] | boolean;
  prefixItems?: JsonSchema[];
  additionalItems?: JsonSchema | boolean;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** `{ type: 'object' }`, the root of every function's parameters. */
export interface ObjectSchema extends SchemaBase {
  type: 'object';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  minProperties?: number;
  maxProperties?: number;
}

/** A schema without a single `type`: references, compositions, enums, constants and type arrays. */
export interface UntypedSchema extends SchemaBase {
  type?: JsonSchemaTypeName[];
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[] | boolean;
  additionalProperties?: boolean | JsonSchema;
  [keyword: string]: unknown;
}

/** The primitive type names of JSON Schema. */
export type JsonSchemaTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

/** Any JSON Schema the compiler accepts, discriminated on `type` where it has one. */
export type JsonSchema =
  | StringSchema
  | NumericSchema
  | BooleanSchema
  | NullSchema
  | ArraySchema
  | ObjectSchema
  | UntypedSchema;
