import { describe, expect, it } from 'vitest';
import { CATALOG_VERSION, type CapabilityIR } from '@agent-spaces/capabilities';
import { emitCatalog } from '../../src/emit/catalog.js';
import { declarationsCatalog } from '../../src/emit/catalog-dts.js';
import { emitDeclarations } from '../../src/emit/declarations.js';
import { oneLine } from '../../src/emit/one-line.js';
import { schemaDeclarations } from '../../src/emit/schema-declarations.js';
import { capabilityWith } from '../helpers.js';

function catalogOf(capability: CapabilityIR) {
  const declarations = emitDeclarations(capability);
  expect(declarations.diagnostics).toEqual([]);
  return emitCatalog(capability, declarations);
}

describe('emitCatalog', () => {
  it('writes each function with its one-line signature, doc, summary, related types and search words', () => {
    const capability: CapabilityIR = {
      ...capabilityWith(
        { properties: { station: { type: 'string', description: 'Station name' }, when: { $ref: '#/$defs/Slot' } }, $defs: { Slot: { enum: ['am', 'pm'] } } },
        { type: 'array', items: { title: 'Trip', type: 'object', properties: { id: { type: 'string' } } } },
        { name: 'getSchedule', description: 'Get the trains. Of one station.' },
      ),
      exportName: 'trains',
      id: 'trains',
      description: 'Timetables',
    };
    expect(catalogOf(capability)).toEqual({
      version: CATALOG_VERSION,
      types: {
        GetScheduleParams: 'export interface GetScheduleParams {\n    /** Station name */\n    station?: string;\n    when?: Slot;\n  }',
        Slot: 'export type Slot = "am" | "pm";',
        Trip: 'export interface Trip {\n    id?: string;\n  }',
      },
      functions: [
        {
          path: 'trains.getSchedule',
          function: 'getSchedule',
          signature: 'trains.getSchedule(params?: { station?: string; when?: Slot }): Promise<Trip[]>',
          summary: 'Get the trains.',
          doc: 'Get the trains. Of one station.\n@param params.station Station name',
          related: ['GetScheduleParams', 'Slot', 'Trip'],
          words: {
            name: ['get', 'schedul'],
            module: ['capability', 'train', 'train', 'get', 'schedul'],
            fields: ['station', 'when', 'id'],
            doc: ['get', 'train', 'one', 'station', 'param', 'param', 'station', 'station', 'name'],
            context: ['timetabl'],
          },
        },
      ],
    });
  });

  it('names a parameters type that is not an interface instead of inlining it, and shows fn() without parameters', () => {
    const union = catalogOf(capabilityWith({ anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'number' } } }] }));
    expect(union.functions[0]!.signature).toBe('demo.run(params?: RunParams): Promise<unknown>');
    expect(union.functions[0]!.related).toEqual(['RunParams']);
    expect(catalogOf(capabilityWith({})).functions[0]!.signature).toBe('demo.run(): Promise<unknown>');
  });

  it('relates a defineTool() source’s own declarations the result names, transitively, and none a comment or string mentions', () => {
    const capability: CapabilityIR = {
      ...capabilityWith({}, undefined, { returnsType: '{\n  trip: Trip; // not a Stop\n  note: "Stop";\n}' }),
      declarations: '/** A trip. */\nexport interface Trip {\n  legs: Leg[];\n}\n\nexport interface Leg {\n  from: string;\n\n  to: string;\n}\n\nexport interface Stop {\n  at: string;\n}',
    };
    const { types, functions } = catalogOf(capability);
    expect(functions[0]!.signature).toBe('demo.run(): Promise<{ trip: Trip; note: "Stop" }>');
    expect(functions[0]!.related).toEqual(['Trip', 'Leg']);
    expect(types).toEqual({
      Trip: '/** A trip. */\n  export interface Trip {\n    legs: Leg[];\n  }',
      Leg: 'export interface Leg {\n    from: string;\n\n    to: string;\n  }',
    });
  });
});

describe('oneLine', () => {
  it('drops comments, joins lines and the ; before }, and leaves string literals alone', () => {
    expect(oneLine('{\n  /** Id */\n  id: string;\n  tag?: "/** ; }\\n";\n  nested: {\n    a: 1; // one\n  };\n}[]')).toBe(
      '{ id: string; tag?: "/** ; }\\n"; nested: { a: 1 } }[]',
    );
    expect(oneLine('"a" | "b"')).toBe('"a" | "b"');
  });
});

describe('schemaDeclarations', () => {
  it('declares the type and the types it needs on one line, every name prefixed', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', description: 'Count' }, trip: { $ref: '#/$defs/Trip' } },
      required: ['n'],
      $defs: { Trip: { type: 'object', properties: { id: { type: 'string' } } } },
    };
    expect(schemaDeclarations(schema, 'Input', '__', 'tool')).toEqual({
      type: '__Input',
      text: 'export interface __Input { n: number; trip?: __Trip } export interface __Trip { id?: string }',
      diagnostics: [],
    });
  });

  it('keeps schema text inside literals and names, and reports what it cannot type', () => {
    const schema = {
      type: 'object',
      title: 'X}; throw 1; {',
      properties: { '};throw 1;//': { enum: ['*/', '\n}'], description: '*/ throw 1; /*' }, ext: { $ref: 'other.json' } },
    };
    const { text, diagnostics } = schemaDeclarations(schema, 'Input', '__', 'tool');
    expect(text).toBe('export interface __Input { "};throw 1;//"?: "*/" | "\\n}"; ext?: unknown }');
    expect(diagnostics.map((d) => `${d.code} ${d.file} ${d.pointer}`)).toEqual(['BAD_REF tool /properties/ext/$ref']);
  });
});

describe('declarationsCatalog', () => {
  it('reads hand-written declarations: objects of methods and namespaces, with local parameter types inlined', async () => {
    const text = `declare module '@agent-spaces/std' {
  export interface Options { sep?: string }
  /** CSV. */
  export const csv: {
    /** Parses. More. */
    parse(text: string, options?: Options): string[][];
  };
  export namespace time {
    /** Now. */
    function now(): Date;
  }
}`;
    const entries = await declarationsCatalog(text, 'ignored');
    expect(entries.map((e) => `${e.module} ${e.signature} // ${e.summary}`)).toEqual([
      '@agent-spaces/std csv.parse(text: string, options?: { sep?: string }): string[][] // Parses.',
      '@agent-spaces/std time.now(): Date // Now.',
    ]);
    expect(entries[0]!.related).toEqual(['export interface Options { sep?: string }']);
    expect(entries[0]!.words).toMatchObject({ doc: ['pars', 'more'], fields: ['text', 'option', 'sep'], context: ['csv'] });
  });
});
