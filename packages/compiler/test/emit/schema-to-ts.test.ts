import { describe, expect, it } from 'vitest';
import { SchemaTypes } from '../../src/emit/schema-to-ts.js';
import { NameAllocator } from '../../src/ir/names.js';
import { codes } from '../helpers.js';
import { SCHEMA_CASES } from './schema-cases.js';

/** Declares `schema` as `Params` and returns every declaration it needed, as the module would print them. */
function typesOf(schema: unknown): { text: string; diagnostics: string[]; messages: string[] } {
  const types = new SchemaTypes('f.json', new NameAllocator(), '');
  types.declare({ schema, pointer: '/functions/0/parameters' }, 'Params', []);
  return { text: types.declarations.map((d) => d.text).join('\n'), diagnostics: codes(types.diagnostics), messages: types.diagnostics.map((d) => d.message) };
}

function expectTypes(schema: unknown, expected: string): void {
  const { text, diagnostics } = typesOf(schema);
  expect(diagnostics).toEqual([]);
  expect(text).toBe(expected);
}

describe('$ref', () => {
  it('turns #/$defs targets into named exported interfaces, used wherever referenced', () => {
    expectTypes(
      SCHEMA_CASES.defsRef,
      `export interface Params {
  home?: Address;
  /** Office */
  work?: Address;
}

export interface Address {
  street: string;
}
`,
    );
  });

  it('turns #/definitions targets that are not objects into type aliases', () => {
    expectTypes(SCHEMA_CASES.definitionsRef, 'export interface Params {\n  size?: Size;\n}\n\nexport type Size = "s" | "m" | "l";\n');
  });

  it('resolves "#" to the type being declared (recursion through the root)', () => {
    expectTypes(SCHEMA_CASES.rootRef, 'export interface Params {\n  name: string;\n  children?: Params[];\n}\n');
  });

  it('declares a recursive $defs type once and refers to it by name inside itself', () => {
    expectTypes(
      SCHEMA_CASES.recursiveDefs,
      'export interface Params {\n  tree?: Node;\n}\n\nexport interface Node {\n  value?: number;\n  next?: Node | null;\n}\n',
    );
  });

  it('reports an unresolvable $ref as BAD_REF at the $ref keyword, never as a silent unknown', () => {
    const { text, diagnostics, messages } = typesOf({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } });
    expect(diagnostics).toEqual(['BAD_REF /functions/0/parameters/properties/a/$ref']);
    expect(messages[0]).toContain('#/$defs/Missing');
    expect(text).toContain('a?: unknown;');
  });

  it('reports a remote $ref and a circular alias chain as BAD_REF', () => {
    expect(typesOf({ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } }).diagnostics).toEqual([
      'BAD_REF /functions/0/parameters/properties/a/$ref',
    ]);
    const circular = { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } };
    expect(typesOf(circular).diagnostics).toEqual(['BAD_REF /functions/0/parameters/$defs/B/$ref']);
  });

  it('decodes ~1 and ~0 in pointers', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/a~1b' } }, $defs: { 'a/b': { type: 'string' } } };
    expectTypes(schema, 'export interface Params {\n  a?: AB;\n}\n\nexport type AB = string;\n');
  });
});

describe('composition and literals', () => {
  it('maps anyOf/oneOf to unions and allOf to intersections', () => {
    expectTypes(
      SCHEMA_CASES.unions,
      `export interface Params {
  id?: string | number;
  shape?: {
    kind: "circle";
    r: number;
  } | {
    kind: "square";
    side: number;
  };
  both?: Named & {
    age?: number;
  };
}

export interface Named {
  name: string;
}
`,
    );
  });

  it('maps enum and const to literal unions and type arrays to unions', () => {
    expectTypes(
      SCHEMA_CASES.literals,
      `export interface Params {
  level?: "low" | "medium" | "high";
  code?: 1 | 2 | 3;
  mixed?: "a" | 1 | true | null;
  fixed?: "v1";
  note?: string | null;
  empty?: never;
}
`,
    );
  });

  it('adds null for OpenAPI nullable', () => {
    expectTypes(SCHEMA_CASES.nullable, 'export interface Params {\n  when?: string | null;\n}\n');
  });
});

describe('objects and arrays', () => {
  it('writes nested objects and arrays of objects inline, wrapping unions before []', () => {
    expectTypes(
      SCHEMA_CASES.nested,
      `export interface Params {
  /** What to match */
  filter?: {
    from?: {
      station: string;
    };
  };
  rows?: {
    a?: string;
    b?: boolean;
  }[];
  matrix?: number[][];
  tags?: (string | number)[];
}
`,
    );
  });

  it('writes tuples from items arrays and prefixItems, with minItems and rest elements', () => {
    expectTypes(
      SCHEMA_CASES.tuples,
      `export interface Params {
  point?: [number, number];
  /** @minItems 1 */
  range?: [string, number?, number?];
  head?: [string, ...number[]];
}
`,
    );
  });

  it('writes additionalProperties and patternProperties as index signatures that admit the declared properties', () => {
    expectTypes(
      SCHEMA_CASES.indexSignatures,
      `export interface Params {
  labels?: {
    [key: string]: string;
  };
  anything?: {
    [key: string]: unknown;
  };
  counted?: {
    total: number;
    [key: string]: string | number;
  };
  headers?: {
    /** Keys matching /^x-/ */
    [key: string]: string;
  };
  closed?: Record<string, never>;
}
`,
    );
  });

  it('includes undefined in an index signature beside optional properties', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } };
    expectTypes(schema, 'export interface Params {\n  a?: string;\n  [key: string]: number | string | undefined;\n}\n');
  });

  it('quotes property names that are not identifiers and escapes quotes in them', () => {
    expectTypes(
      SCHEMA_CASES.quotedKeys,
      'export interface Params {\n  "x-api-key": string;\n  "2fa"?: boolean;\n  default?: string;\n  "say \\"hi\\""?: string;\n}\n',
    );
  });

  it('types empty and absent schemas as unknown and false as never', () => {
    expectTypes(
      SCHEMA_CASES.unknowns,
      `export interface Params {
  any?: unknown;
  yes?: unknown;
  no?: never;
  list?: unknown[];
  bag?: Record<string, unknown>;
}
`,
    );
  });

  it('honors draft 3 "required": true on a property and lists required names without a schema as unknown', () => {
    expectTypes(
      { type: 'object', properties: { id: { type: 'string', required: true } }, required: ['extra'] },
      'export interface Params {\n  id: string;\n  extra: unknown;\n}\n',
    );
  });

  it('names a nested object by its identifier-like title, but not a titled primitive', () => {
    expectTypes(
      SCHEMA_CASES.titled,
      'export interface Params {\n  owner?: Owner;\n  label?: string;\n}\n\nexport interface Owner {\n  id?: string;\n}\n',
    );
  });
});

describe('JSDoc', () => {
  it('turns description, default, format, bounds, pattern, examples and deprecated into JSDoc; */ cannot end it', () => {
    expectTypes(
      SCHEMA_CASES.docs,
      `export interface Params {
  /**
   * Max rows
   * @default 10
   * @minimum 1
   * @maximum 100
   */
  limit?: number;
  /**
   * @format email
   * @maxLength 200
   * @pattern ^[^@]+@[^@]+$
   */
  email?: string;
  /**
   * @example true
   * @deprecated
   */
  old?: boolean;
  /**
   * Ends a comment *\\/ early?
   * Second line
   */
  tricky?: string;
}
`,
    );
  });
});

describe('invalid schemas', () => {
  it('reports an unknown type as UNKNOWN_TYPE at the type keyword', () => {
    const { diagnostics, text } = typesOf({ type: 'object', properties: { a: { type: 'strnig' }, b: { type: ['string', 'date'] } } });
    expect(diagnostics).toEqual(['UNKNOWN_TYPE /functions/0/parameters/properties/a/type', 'UNKNOWN_TYPE /functions/0/parameters/properties/b/type/1']);
    expect(text).toContain('a?: unknown;');
  });

  it('reports an enum that is not an array with the pointer of the enum', () => {
    const { diagnostics, messages } = typesOf({ type: 'object', properties: { unit: { type: 'string', enum: 'celsius' } } });
    expect(diagnostics).toEqual(['INVALID_DEFINITION /functions/0/parameters/properties/unit/enum']);
    expect(messages).toEqual(['enum must be an array']);
  });

  it('reports malformed properties, required and schemas', () => {
    const { diagnostics } = typesOf({ type: 'object', properties: { a: 42, b: { type: 'object', properties: [] }, c: { type: 'object', required: 'x' } } });
    expect(diagnostics).toEqual([
      'INVALID_DEFINITION /functions/0/parameters/properties/a',
      'INVALID_DEFINITION /functions/0/parameters/properties/b/properties',
      'INVALID_DEFINITION /functions/0/parameters/properties/c/required',
    ]);
  });
});
