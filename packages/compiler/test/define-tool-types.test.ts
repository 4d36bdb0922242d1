import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDefineToolSource } from '../src/sources/define-tool.js';
import { only, useDefineToolProject } from './define-tool-project.js';
import { sourceContext } from './helpers.js';

const project = useDefineToolProject();

describe('return types', () => {
  const TYPES = `/** Who runs trains. */
export interface Operator {
  name: string;
  /** Two-letter code. */
  code: string;
}

export enum Priority {
  Low = 'low',
  High = 'high',
}

export enum Level { A, B = 5, C }

/** A page of results. */
export type Page<T> = { items: T[]; next?: string };

export interface Departure extends Base {
  operator: Operator;
  priority: Priority;
  level: Level;
  urgent: Priority.High;
  at: Date;
  counts: Record<string, number>;
}

interface Base { id: string }
`;

  it('collects types imported from local files, transitively, under their declared names', async () => {
    const capability = only(
      await project.read({
        'schedule.ts': `
          import { defineTool } from '@agent-spaces/capabilities';
          import type { Departure as Trip } from './types.js';
          import * as types from './types';

          export const schedule = defineTool({
            name: 'schedule',
            functions: {
              list: { description: 'List', returns: {} as Trip[], handler: async () => [] },
              page: { description: 'Page', returns: <types.Page<Trip>>{}, handler: async () => ({ items: [] }) },
              ping: { description: 'No declared result', handler: async () => 'pong' },
            },
          });`,
        'types.ts': TYPES,
      }),
    );
    expect(capability.functions.map((fn) => [fn.name, fn.returnsType])).toEqual([
      ['list', 'Departure[]'],
      ['page', 'Page<Departure>'],
      ['ping', 'unknown'],
    ]);
    expect(capability.declarations).toBe(`export interface Departure extends Base {
  operator: Operator;
  priority: Priority;
  level: Level;
  urgent: 'high';
  at: Date;
  counts: Record<string, number>;
}

/** A page of results. */
export type Page<T> = { items: T[]; next?: string };

export interface Base { id: string }

/** Who runs trains. */
export interface Operator {
  name: string;
  /** Two-letter code. */
  code: string;
}

export type Priority = 'low' | 'high';

export type Level = 0 | 5 | 6;`);
  });

  it('reads satisfies, nested assertions and inline object types; lib types stay references', async () => {
    const capability = only(
      await project.read({
        'inline.ts': `
          import { defineTool } from '@agent-spaces/capabilities';
          interface Item { at: Date }
          export const inline = defineTool({
            name: 'inline',
            functions: {
              a: { description: 'a', returns: {} satisfies Record<string, never>, handler: async () => ({}) },
              b: { description: 'b', returns: undefined as unknown as { items: Item[]; total: number }, handler: async () => ({ items: [], total: 0 }) },
              c: { description: 'c', returns: {} as Promise<Map<string, Item>>, handler: async () => new Map() },
            },
          });`,
      }),
    );
    expect(capability.functions.map((fn) => fn.returnsType)).toEqual([
      'Record<string, never>',
      '{ items: Item[]; total: number }',
      'Promise<Map<string, Item>>',
    ]);
    expect(capability.declarations).toBe('export interface Item { at: Date }');
  });

  it('reads a JSDoc @type cast in a JavaScript source', async () => {
    const capability = only(
      await project.read({
        'ops.mjs': `
          import { defineTool } from '@agent-spaces/capabilities';
          /** @import { Operator } from './types.js' */
          export const ops = defineTool({
            name: 'ops',
            functions: {
              get: { description: 'Get', returns: /** @type {Operator} */ ({}), handler: async () => ({ name: 'x', code: 'XX' }) },
            },
          });`,
        'types.ts': TYPES,
      }),
    );
    expect(capability.functions[0]!.returnsType).toBe('Operator');
    expect(capability.declarations).toContain('export interface Operator {');
  });

  it.each([
    ['an unresolvable name', 'returns: {} as Missing[]', 'get: cannot resolve type "Missing"'],
    ['a class', 'returns: {} as Thing', 'get: type "Thing" is a class'],
    ['a typeof query', 'returns: {} as typeof thing', 'get: "typeof thing" in a return type cannot be emitted'],
    ['a value instead of an assertion', 'returns: [] ', 'cannot read the return type of get'],
    ['an as-const value', "returns: { a: 1 } as const", 'cannot read the return type of get'],
    ['a computed enum', 'returns: {} as Computed', 'get: enum "Computed" has a computed member "A"'],
  ])('reports %s as TYPE_EXTRACTION_FAILED naming the file, function and type', async (_, returns, message) => {
    const result = await project.read({
      'broken.ts': `
        import { defineTool } from '@agent-spaces/capabilities';
        class Thing { x = 1 }
        enum Computed { A = 'a'.length }
        const thing = new Thing();
        export const broken = defineTool({
          name: 'broken',
          functions: { get: { description: 'Get', ${returns}, handler: async () => thing } },
        });`,
    });
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({
      code: 'TYPE_EXTRACTION_FAILED',
      severity: 'error',
      file: relative(project.root, join(result.dir, 'broken.ts')),
      pointer: '/functions/get/returns',
    });
    expect(result.diagnostics[0]!.message).toContain(message);
  });

  it('reports two different types with the same name', async () => {
    const result = await project.read({
      'twins.ts': `
        import { defineTool } from '@agent-spaces/capabilities';
        import type { Item as Other } from './other.js';
        interface Item { id: string }
        export const twins = defineTool({
          name: 'twins',
          functions: {
            a: { description: 'a', returns: {} as Item, handler: async () => ({ id: 'a' }) },
            b: { description: 'b', returns: {} as Other, handler: async () => ({ code: 1 }) },
          },
        });`,
      'other.ts': `export interface Item { code: number }`,
    });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'TYPE_EXTRACTION_FAILED',
        pointer: '/functions/b/returns',
        message: 'b: two different types are named "Item"; rename one of them',
      }),
    ]);
  });

  it('reports a returns it cannot find in the source of a dynamically built definition', async () => {
    const result = await project.read({
      'dynamic.ts': `
        import { defineTool } from '@agent-spaces/capabilities';
        const functions = Object.fromEntries([['get', { description: 'get', returns: {} as string, handler: async () => 'x' }]]);
        export const dynamic = defineTool({ name: 'dynamic', functions } as never);`,
    });
    expect(result.capabilities[0]!.functions[0]!.returnsType).toBe('unknown');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'TYPE_EXTRACTION_FAILED', pointer: '/functions/get/returns' }),
    ]);
  });

  it('warns that a type from a package is kept as a reference', async () => {
    const result = await project.read({
      'limits.ts': `
        import { defineTool, type RateLimit } from '@agent-spaces/capabilities';
        export const limits = defineTool({
          name: 'limits',
          functions: { get: { description: 'Get', returns: {} as RateLimit, handler: async () => ({ requests: 1, period: 'second' as const }) } },
        });`,
    });
    expect(result.capabilities[0]!.functions[0]!.returnsType).toBe('RateLimit');
    expect(result.capabilities[0]!.declarations).toBeUndefined();
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'TYPE_EXTRACTION_FAILED', severity: 'warning', pointer: '/functions/get/returns' }),
    ]);
  });

  it('sees a changed source when the same file is read again', async () => {
    const source = (type: string) => `
      import { defineTool } from '@agent-spaces/capabilities';
      interface Result { value: ${type} }
      export const changing = defineTool({
        name: 'changing',
        functions: { get: { description: '${type}', returns: {} as Result, handler: async () => ({ value: 1 }) } },
      });`;
    const firstRead = await project.read({ 'changing.ts': source('number') });
    const first = only(firstRead);
    await writeFile(join(firstRead.dir, 'changing.ts'), source('string | undefined'));
    const second = only(await readDefineToolSource(join(firstRead.dir, 'changing.ts'), sourceContext(project.root)));
    expect(first.functions[0]!.description).toBe('number');
    expect(first.declarations).toBe('export interface Result { value: number }');
    expect(second.functions[0]!.description).toBe('string | undefined');
    expect(second.declarations).toBe('export interface Result { value: string | undefined }');
  });
});
