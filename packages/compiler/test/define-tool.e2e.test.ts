import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { emitDeclarations } from '../src/emit/declarations.js';
import { readDefineToolSource } from '../src/sources/define-tool.js';
import { only, REPO, useDefineToolProject } from './define-tool-project.js';
import { sourceContext } from './helpers.js';

const project = useDefineToolProject();

// The seed's TypeScript format (seed 002, "TypeScript Format"), verbatim.
const SEED_TRAIN_SCHEDULE = `import { defineTool } from '@agent-spaces/capabilities';

interface Trip {
  id: string;
  hour: number;
  minute: number;
  destination: string;
  platform: string;
}

interface TrainDetails {
  id: string;
  operator: string;
  stops: string[];
}

export const trainSchedule = defineTool({
  name: 'trainSchedule',
  description: 'Get train schedule information',
  
  functions: {
    getSchedule: {
      description: 'Get all scheduled trains',
      parameters: {
        station: { type: 'string', optional: true },
        date: { type: 'string', format: 'date', optional: true },
      },
      returns: {} as Trip[],
      handler: async ({ station, date }) => {
        // Implementation - calls actual API
        const response = await fetch(\`https://api.trains.com/schedule?station=\${station}&date=\${date}\`);
        return response.json();
      },
    },
    
    getTrainDetails: {
      description: 'Get details for a specific train',
      parameters: {
        trainId: { type: 'string', required: true },
      },
      returns: {} as TrainDetails,
      handler: async ({ trainId }) => {
        const response = await fetch(\`https://api.trains.com/trains/\${trainId}\`);
        return response.json();
      },
    },
  },
  
  config: {
    requiresApproval: false,
    rateLimit: { requests: 100, period: 'minute' },
  },
});
`;

describe('the seed train schedule', () => {
  it('reads into the exact IR, with Trip and TrainDetails as declarations', async () => {
    const result = await project.read({ 'capabilities/train-schedule.ts': SEED_TRAIN_SCHEDULE });
    const file = join(result.dir, 'capabilities/train-schedule.ts');
    expect(only(result)).toEqual({
      id: 'train-schedule',
      exportName: 'trainSchedule',
      sourceName: 'trainSchedule',
      description: 'Get train schedule information',
      version: '0.0.0',
      source: { kind: 'define-tool', file: relative(project.root, file) },
      functions: [
        {
          name: 'getSchedule',
          sourceName: 'getSchedule',
          description: 'Get all scheduled trains',
          parameters: {
            type: 'object',
            properties: { station: { type: 'string' }, date: { type: 'string', format: 'date' } },
          },
          returnsType: 'Trip[]',
          pointer: '/functions/getSchedule',
        },
        {
          name: 'getTrainDetails',
          sourceName: 'getTrainDetails',
          description: 'Get details for a specific train',
          parameters: { type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] },
          returnsType: 'TrainDetails',
          pointer: '/functions/getTrainDetails',
        },
      ],
      config: { requiresApproval: false, rateLimit: { requests: 100, period: 'minute' } },
      executor: { kind: 'module', module: 'host.mjs', export: 'trainSchedule' },
      declarations: [
        'export interface Trip {',
        '  id: string;',
        '  hour: number;',
        '  minute: number;',
        '  destination: string;',
        '  platform: string;',
        '}',
        '',
        'export interface TrainDetails {',
        '  id: string;',
        '  operator: string;',
        '  stops: string[];',
        '}',
      ].join('\n'),
      dependencies: [{ name: '@agent-spaces/capabilities', version: expect.any(String) }],
    });
    // The imported package is bundled (so host.mjs runs wherever the output is moved): its package.json is an input.
    expect(result.inputs).toEqual([file, join(project.root, 'node_modules/@agent-spaces/capabilities/package.json')]);
    expect(Object.keys(result.hostModules)).toEqual(['train-schedule']);
    expect(result.hostModules['train-schedule']).toContain('https://api.trains.com/schedule');
    expect(result.hostModules['train-schedule']).not.toMatch(/from ["'][^"']*\/capabilities\/[^"']+["']/);
  });

  it('emits the seed\'s generated .d.ts (seed "Generated Code API") from the TypeScript source', async () => {
    const dir = join(project.root, 'seed');
    await mkdir(join(dir, 'capabilities'), { recursive: true });
    await writeFile(join(dir, 'capabilities/train-schedule.ts'), SEED_TRAIN_SCHEDULE);
    const result = await readDefineToolSource(join(dir, 'capabilities/train-schedule.ts'), sourceContext(dir));
    const emitted = emitDeclarations(only(result));
    expect(emitted.diagnostics).toEqual([]);
    const golden = join(import.meta.dirname, 'golden/train-schedule.define-tool.d.ts');
    if (process.env.UPDATE_GOLDEN === '1') await writeFile(golden, emitted.text);
    expect(emitted.text).toBe(await readFile(golden, 'utf8'));
  });

  it('leaves no temporary module behind', async () => {
    await project.read({ 'capabilities/train-schedule.ts': SEED_TRAIN_SCHEDULE });
    expect(await readdir(join(project.root, '.agent-spaces/.tmp'))).toEqual([]);
  });
});

describe('module ids and exports', () => {
  it('gives each definition of a multi-definition file its own module', async () => {
    const result = await project.read({
      'capabilities/tools.ts': `
        import { defineTool } from '@agent-spaces/capabilities';
        interface A { a: 1 } interface B { b: 2 } interface C { c: 3 }
        export const tools = defineTool({ name: 'tools', functions: { a: { description: 'a', returns: {} as A, handler: async () => ({ a: 1 as const }) } } });
        export const extraHelpers = defineTool({ name: 'extra_helpers', functions: { b: { description: 'b', returns: {} as B, handler: async () => ({ b: 2 as const }) } } });
        export default defineTool({ name: 'Third', functions: { c: { description: 'c', returns: {} as C, handler: async () => ({ c: 3 as const }) } } });
        export const notATool = { name: 'x' };`,
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.capabilities.map((c) => [c.id, c.exportName, c.executor, c.declarations])).toEqual([
      ['tools-third', 'third', { kind: 'module', module: 'host.mjs', export: 'default' }, 'export interface C { c: 3 }'],
      ['tools-extra-helpers', 'extraHelpers', { kind: 'module', module: 'host.mjs', export: 'extraHelpers' }, 'export interface B { b: 2 }'],
      ['tools', 'tools', { kind: 'module', module: 'host.mjs', export: 'tools' }, 'export interface A { a: 1 }'],
    ]);
    expect(Object.keys(result.hostModules).sort()).toEqual(['tools', 'tools-extra-helpers', 'tools-third']);
  });

  it('names the module after the file in kebab-case and the export after the definition in camelCase', async () => {
    const capability = only(
      await project.read({
        'companyCRM_tools.ts': `
          import { defineTool } from '@agent-spaces/capabilities';
          const definition = defineTool({ name: 'company-crm', functions: { find_all: { description: 'x', handler: async () => [] } } });
          export { definition as crmTools };`,
      }),
    );
    expect(capability).toMatchObject({ id: 'company-crm-tools', exportName: 'companyCrm', sourceName: 'company-crm' });
    expect(capability.executor).toEqual({ kind: 'module', module: 'host.mjs', export: 'crmTools' });
    expect(capability.functions[0]).toMatchObject({ name: 'findAll', sourceName: 'find_all', returnsType: 'unknown' });
  });

  it('lists every local file the bundle read as inputs', async () => {
    const result = await project.read({
      'entry.ts': `
        import { defineTool } from '@agent-spaces/capabilities';
        import { greet } from './lib/greet';
        import data from './data.json' with { type: 'json' };
        export const hello = defineTool({ name: 'hello', functions: { hi: { description: 'hi', handler: async () => greet(data.who) } } });`,
      'lib/greet.ts': `export const greet = (who: string) => 'hi ' + who;`,
      'data.json': `{ "who": "you" }`,
    });
    expect(result.diagnostics).toEqual([]);
    expect([...result.inputs].sort()).toEqual(
      [...['data.json', 'entry.ts', 'lib/greet.ts'].map((f) => join(result.dir, f)), join(project.root, 'node_modules/@agent-spaces/capabilities/package.json')].sort(),
    );
  });
});

describe('definition errors', () => {
  const tool = (functions: string, extra = '') => `
    import { defineTool } from '@agent-spaces/capabilities';
    export const broken = defineTool({ name: 'broken', functions: { ${functions} }, ${extra} } as never);`;

  it('reports a file exporting no defineTool value as INVALID_DEFINITION', async () => {
    const result = await project.read({ 'nothing.ts': `export const answer = 42;` });
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'INVALID_DEFINITION', severity: 'error', file: relative(project.root, join(result.dir, 'nothing.ts')) }),
    ]);
  });

  it('reports a bad shorthand type as UNKNOWN_TYPE at its JSON pointer', async () => {
    const result = await project.read({
      'bad-type.ts': tool(`getSchedule: { description: 'x', parameters: { station: { type: 'strng' } }, handler: async () => [] }`),
    });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_TYPE', pointer: '/functions/getSchedule/parameters/station/type' }),
    ]);
  });

  it('reports a module that throws on import as SOURCE_UNREADABLE with the error message', async () => {
    const result = await project.read({ 'throws.ts': `throw new Error('database is not configured');` });
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ code: 'SOURCE_UNREADABLE' });
    expect(result.diagnostics[0]!.message).toContain('database is not configured');
  });

  it('reports a syntax error as SOURCE_UNREADABLE with its location', async () => {
    const result = await project.read({ 'syntax.ts': `export const x = {` });
    expect(result.diagnostics[0]).toMatchObject({ code: 'SOURCE_UNREADABLE' });
    expect(result.diagnostics[0]!.message).toMatch(/syntax\.ts:1:\d+/);
  });

  it.each([
    ['a misspelled function key', `get: { description: 'x', requireApproval: true, handler: async () => 1 }`, '', '/functions/get/requireApproval'],
    ['a missing handler', `get: { description: 'x' }`, '', '/functions/get/handler'],
    ['an approvalMessage that is not a function', `get: { description: 'x', approvalMessage: 'sure?', handler: async () => 1 }`, '', '/functions/get/approvalMessage'],
    ['a parameter that is required and optional', `get: { description: 'x', parameters: { a: { type: 'string', required: true, optional: true } }, handler: async () => 1 }`, '', '/functions/get/parameters/a'],
    ['an empty enum', `get: { description: 'x', parameters: { a: { type: 'string', enum: [] } }, handler: async () => 1 }`, '', '/functions/get/parameters/a/enum'],
    ['a function as a default', `get: { description: 'x', parameters: { a: { type: 'string', default: () => 'a' } }, handler: async () => 1 }`, '', '/functions/get/parameters/a/default'],
    ['a bad rate limit period', `get: { description: 'x', handler: async () => 1 }`, `config: { rateLimit: { requests: 5, period: 'fortnight' } }`, '/config/rateLimit/period'],
    ['an unknown config key', `get: { description: 'x', handler: async () => 1 }`, `config: { requireApproval: true }`, '/config/requireApproval'],
    ['an unknown definition key', `get: { description: 'x', handler: async () => 1 }`, `functionz: {}`, '/functionz'],
  ])('reports %s as INVALID_DEFINITION at its pointer', async (_, functions, extra, pointer) => {
    const result = await project.read({ 'invalid.ts': tool(functions, extra) });
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'INVALID_DEFINITION', severity: 'error', pointer })]);
  });
});

describe('parameter shorthand', () => {
  it('turns required flags into required lists, also in nested objects, and keeps JSON Schema keywords', async () => {
    const capability = only(
      await project.read({
        'shorthand.ts': `
          import { defineTool } from '@agent-spaces/capabilities';
          export const s = defineTool({ name: 's', functions: { f: {
            description: 'f',
            parameters: {
              query: { type: 'string', required: true, description: 'Search text', minLength: 1 },
              limit: { type: 'integer', default: 10, optional: true },
              mode: { enum: ['fast', 'exact'] },
              filter: {
                type: 'object',
                properties: { owner: { type: 'string', required: true }, tags: { type: 'array', items: { type: 'string' } } },
              },
              points: { type: 'array', items: { type: 'object', required: ['x'], properties: { x: { type: 'number' }, y: { type: 'number', required: true } } } },
            },
            handler: async () => null,
          } } });`,
      }),
    );
    expect(capability.functions[0]!.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search text', minLength: 1 },
        limit: { type: 'integer', default: 10 },
        mode: { enum: ['fast', 'exact'] },
        filter: {
          type: 'object',
          properties: { owner: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['owner'],
        },
        points: {
          type: 'array',
          items: { type: 'object', required: ['x', 'y'], properties: { x: { type: 'number' }, y: { type: 'number' } } },
        },
      },
      required: ['query'],
    });
  });
});

describe('start-up cost', () => {
  it('loads typescript only once a source is read, never for the config', async () => {
    const dir = join(project.root, 'lazy');
    await build({
      entryPoints: { reader: join(REPO, 'packages/compiler/src/sources/define-tool.ts'), config: join(REPO, 'packages/compiler/src/config/load.ts') },
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      logLevel: 'silent',
    });
    await writeFile(join(dir, 'agent-spaces.config.ts'), `export default { capabilities: ['notes.ts'] as string[] };`);
    await writeFile(
      join(dir, 'run.mjs'),
      `import { createRequire } from 'node:module';
      const cache = createRequire(import.meta.url).cache;
      const loaded = () => Object.keys(cache).some((key) => key.includes('/node_modules/typescript/'));
      const { readDefineToolSource } = await import('./reader.mjs');
      const { loadConfig } = await import('./config.mjs');
      const afterImport = loaded();
      await loadConfig({ cwd: ${JSON.stringify(dir)} });
      const afterConfig = loaded();
      const context = { rootDir: ${JSON.stringify(dir)}, outDir: ${JSON.stringify(join(dir, 'out'))}, relative: (f) => f };
      const result = await readDefineToolSource(${JSON.stringify(join(REPO, 'capabilities/notes.ts'))}, context);
      console.log(JSON.stringify({ afterImport, afterConfig, afterRead: loaded(), diagnostics: result.diagnostics }));`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'run.mjs')]);
    expect(JSON.parse(stdout)).toEqual({ afterImport: false, afterConfig: false, afterRead: true, diagnostics: [] });
  });
});
