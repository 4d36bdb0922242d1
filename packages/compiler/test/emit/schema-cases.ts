/** JSON Schemas exercising every feature the emitter supports, shared by the exact-output and the tsc tests. */
export const SCHEMA_CASES = {
  defsRef: {
    type: 'object',
    properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/$defs/address', description: 'Office' } },
    $defs: { address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] } },
  },
  definitionsRef: {
    type: 'object',
    properties: { size: { $ref: '#/definitions/Size' } },
    definitions: { Size: { enum: ['s', 'm', 'l'] } },
  },
  rootRef: {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
    required: ['name'],
  },
  recursiveDefs: {
    type: 'object',
    properties: { tree: { $ref: '#/$defs/Node' } },
    $defs: {
      Node: {
        type: 'object',
        properties: { value: { type: 'number' }, next: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] } },
      },
    },
  },
  unions: {
    type: 'object',
    properties: {
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      shape: {
        oneOf: [
          { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
          { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
        ],
      },
      both: { allOf: [{ $ref: '#/$defs/Named' }, { type: 'object', properties: { age: { type: 'integer' } } }] },
    },
    $defs: { Named: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  },
  literals: {
    type: 'object',
    properties: {
      level: { type: 'string', enum: ['low', 'medium', 'high'] },
      code: { enum: [1, 2, 3] },
      mixed: { enum: ['a', 1, true, null] },
      fixed: { const: 'v1' },
      note: { type: ['string', 'null'] },
      empty: { enum: [] },
    },
  },
  nested: {
    type: 'object',
    properties: {
      filter: {
        type: 'object',
        description: 'What to match',
        properties: { from: { type: 'object', properties: { station: { type: 'string' } }, required: ['station'] } },
      },
      rows: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } } } },
      matrix: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
      tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
    },
  },
  tuples: {
    type: 'object',
    properties: {
      point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }] },
      range: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }, { type: 'integer' }], minItems: 1 },
      head: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } },
    },
  },
  indexSignatures: {
    type: 'object',
    properties: {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      anything: { type: 'object', additionalProperties: true },
      counted: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'], additionalProperties: { type: 'string' } },
      headers: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
      closed: { type: 'object', additionalProperties: false },
    },
  },
  docs: {
    type: 'object',
    properties: {
      limit: { type: 'integer', description: 'Max rows', default: 10, minimum: 1, maximum: 100 },
      email: { type: 'string', format: 'email', pattern: '^[^@]+@[^@]+$', maxLength: 200 },
      old: { type: 'boolean', deprecated: true, examples: [true] },
      tricky: { type: 'string', description: 'Ends a comment */ early?\nSecond line' },
    },
  },
  quotedKeys: {
    type: 'object',
    properties: { 'x-api-key': { type: 'string' }, '2fa': { type: 'boolean' }, default: { type: 'string' }, 'say "hi"': { type: 'string' } },
    required: ['x-api-key'],
  },
  unknowns: {
    type: 'object',
    properties: { any: {}, yes: true, no: false, list: { type: 'array' }, bag: { type: 'object' } },
  },
  titled: {
    type: 'object',
    properties: {
      owner: { title: 'Owner', type: 'object', properties: { id: { type: 'string' } } },
      label: { title: 'Label', type: 'string' },
    },
  },
  nullable: {
    type: 'object',
    properties: { when: { type: 'string', nullable: true } },
  },
} as const satisfies Record<string, Record<string, unknown>>;
