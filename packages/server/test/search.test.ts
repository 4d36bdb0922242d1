import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchWords, type CatalogEntry } from '@agent-spaces/capabilities';
import { buildCapabilities } from '@agent-spaces/compiler';
import { buildCatalog, type Catalog } from '../src/catalog.js';
import { formatSearch, searchCatalog } from '../src/search.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const TRAINS = {
  name: 'trainSchedule',
  functions: [
    {
      name: 'getSchedule',
      description: 'Get all scheduled trains. Filters by station when given.',
      parameters: { type: 'object', properties: { station: { type: 'string' }, date: { type: 'string' } } },
      returns: {
        type: 'array',
        items: {
          title: 'Trip',
          type: 'object',
          properties: { id: { type: 'string' }, hour: { type: 'integer', description: 'Departure hour.' }, destination: { type: 'string' } },
          required: ['id', 'hour', 'destination'],
        },
      },
    },
    {
      name: 'getTrainDetails',
      description: 'Get details for a specific train',
      parameters: { type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] },
      returns: { type: 'object', properties: { id: { type: 'string' }, stops: { type: 'array', items: { type: 'string' } } }, required: ['id', 'stops'] },
    },
  ],
  executor: { kind: 'runtime' },
};

const WEATHER = {
  name: 'weather',
  functions: [
    {
      name: 'getWeather',
      description: 'Get current weather for a location',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
        required: ['location'],
      },
      returns: {
        title: 'WeatherResult',
        type: 'object',
        properties: { temperature: { type: 'number' }, unit: { type: 'string' } },
        required: ['temperature', 'unit'],
      },
    },
  ],
  executor: { kind: 'runtime' },
};

/** Hand-written declarations, as `@agent-spaces/std`'s are: read from their text, not from a build. */
const STD = `export declare namespace time {
  /** Milliseconds since the epoch. */
  function now(): number;
}
export declare const fs: {
  /** Read a text file of the workspace. */
  readFile(params: { path: string }): Promise<string>;
};
`;

const IDS = ['train-schedule', 'weather'];
let project: Project;

/** A space's catalog as the server builds it: `declarations()` as the SDK reads them, `catalog.json` from the build. */
async function catalogOf(ids = IDS): Promise<Catalog> {
  const declarations = new Map([
    ['sandbox-globals.d.ts', 'declare const console: { log(...args: unknown[]): void };'],
    ['agent-spaces-std.d.ts', STD],
  ]);
  for (const id of ids) declarations.set(`${id}.d.ts`, await readFile(join(project.dir, '.agent-spaces/capabilities', id, 'index.d.ts'), 'utf8'));
  return buildCatalog({ capabilities: ids, declarations: () => declarations }, { rootDir: project.dir });
}

beforeAll(async () => {
  project = await makeProject({ 'capabilities/train-schedule.json': TRAINS, 'capabilities/weather.json': WEATHER });
  const report = await project.build({ sources: ['capabilities/*.json'] });
  expect(report.totals).toEqual({ built: 2, unchanged: 0, failed: 0 });
});

/** A catalog entry of `@capabilities/x` with these words only. */
function entry(path: string, words: Partial<CatalogEntry['words']>): CatalogEntry {
  return {
    module: '@capabilities/x',
    path,
    signature: `${path}(): Promise<void>`,
    summary: '',
    doc: '',
    related: [],
    words: { name: [], module: [], fields: [], doc: [], context: [], ...words },
  };
}

describe('buildCatalog', () => {
  it('lists object methods and namespace members, once each, with their modules', async () => {
    const { entries, modules } = await catalogOf();
    expect(entries.map((e) => `${e.module} ${e.path}`).sort()).toEqual([
      '@agent-spaces/std fs.readFile',
      '@agent-spaces/std time.now',
      '@capabilities/train-schedule trainSchedule.getSchedule',
      '@capabilities/train-schedule trainSchedule.getTrainDetails',
      '@capabilities/weather weather.getWeather',
    ]);
    expect([...modules.keys()].sort()).toEqual(['@agent-spaces/std', '@capabilities/train-schedule', '@capabilities/weather']);
    expect(modules.get('@capabilities/weather')).toContain("declare module '@capabilities/weather'");
  });

  it('inlines a params interface into a one-line signature and keeps the doc summary', async () => {
    const entry = (await catalogOf()).entries.find((e) => e.path === 'trainSchedule.getSchedule')!;
    expect(entry.signature).toBe('trainSchedule.getSchedule(params?: { station?: string; date?: string }): Promise<Trip[]>');
    expect(entry.summary).toBe('Get all scheduled trains.');
    expect(entry.related.join('\n')).toContain('export interface GetScheduleParams');
    expect(entry.related.join('\n')).toContain('/** Departure hour. */');
  });

  it('reads the entries of a built capability from the catalog.json the compiler wrote, not from its .d.ts', async () => {
    const file = project.path('.agent-spaces/capabilities/weather/catalog.json');
    const written = JSON.parse(await readFile(file, 'utf8')) as { functions: { summary: string }[] };
    written.functions[0]!.summary = 'Summary from catalog.json.';
    await writeFile(file, JSON.stringify(written));
    try {
      expect((await catalogOf()).entries.find((e) => e.path === 'weather.getWeather')!.summary).toBe('Summary from catalog.json.');
    } finally {
      await buildCapabilities({ rootDir: project.dir, sources: ['capabilities/*.json'], force: true });
    }
  });

  it('fails with CAPABILITY_STALE, saying to rebuild, for a capability built before catalog.json existed', async () => {
    const file = project.path('.agent-spaces/capabilities/weather/catalog.json');
    await rm(file);
    try {
      await expect(catalogOf()).rejects.toMatchObject({ code: 'CAPABILITY_STALE', data: { id: 'weather', file } });
      await expect(catalogOf()).rejects.toThrow(/agent-spaces capabilities build --force/);
    } finally {
      await buildCapabilities({ rootDir: project.dir, sources: ['capabilities/*.json'], force: true });
    }
  });
});

describe('searchCatalog', () => {
  it('ranks a name match above a doc match and leaves out what matches nothing', async () => {
    const hits = searchCatalog(await catalogOf(), 'train details');
    expect(hits[0]!.entry.path).toBe('trainSchedule.getTrainDetails');
    expect(hits.map((h) => h.entry.path)).not.toContain('weather.getWeather');
  });

  it('matches word forms and prefixes (schedules → schedule, temp → temperature is not a function)', async () => {
    expect(searchCatalog(await catalogOf(), 'schedules')[0]!.entry.path).toBe('trainSchedule.getSchedule');
    expect(searchCatalog(await catalogOf(), 'weath')[0]!.entry.path).toBe('weather.getWeather');
    expect(searchCatalog(await catalogOf(), 'zebra')).toEqual([]);
  });

  it('leaves out hits scoring under half the best one', async () => {
    // getSchedule matches "get" and (in its object path) "train", but not "details".
    const hits = searchCatalog(await catalogOf(), 'get train details');
    expect(hits.map((h) => h.entry.path)).toEqual(['trainSchedule.getTrainDetails']);
  });

  it('splits camelCase, snake_case and kebab-case and drops stop words', () => {
    expect(searchWords('getTrainDetails list_channels mcp-slack the')).toEqual(['get', 'train', 'detail', 'list', 'channel', 'mcp', 'slack']);
  });

  it('folds word forms to one stem', () => {
    expect(new Set(searchWords('create creates created creating'))).toEqual(new Set(['creat']));
    expect(new Set(searchWords('entity entities'))).toEqual(new Set(['entity']));
    expect(new Set(searchWords('stop stops stopped stopping'))).toEqual(new Set(['stop']));
    // Too short a stem, or no vowel in it: the word stays whole.
    expect(searchWords('string status address bring')).toEqual(['string', 'status', 'address', 'bring']);
  });

  it('matches a word one typo away (added, dropped, changed or swapped letter), never for short words', async () => {
    const c = await catalogOf();
    for (const typo of ['wether', 'weatherr', 'waether', 'weathar']) expect(searchCatalog(c, typo)[0]?.entry.path).toBe('weather.getWeather');
    expect(searchCatalog(c, 'shcedule')[0]!.entry.path).toBe('trainSchedule.getSchedule');
    expect(searchCatalog(c, 'wthr')).toEqual([]);
    expect(searchCatalog(c, 'gte')).toEqual([]);
  });

  it('finds a function by the field names of its parameters and result', async () => {
    const c = await catalogOf();
    expect(searchCatalog(c, 'temperature').map((h) => h.entry.path)).toEqual(['weather.getWeather']);
    expect(searchCatalog(c, 'stops')[0]!.entry.path).toBe('trainSchedule.getTrainDetails');
    expect(searchCatalog(c, 'trainId')[0]!.entry.path).toBe('trainSchedule.getTrainDetails');
  });

  it("counts words of a capability's own description far below the function's own words", () => {
    // An MCP server's instructions mention remembering facts about people: they are about the server, not about echo.
    const catalog: Catalog = {
      entries: [entry('x.echo', { name: ['echo'], context: ['remember', 'fact', 'person'] }), entry('x.addObservation', { doc: ['fact', 'person'] })],
      modules: new Map(),
    };
    expect(searchCatalog(catalog, 'remember a fact about a person').map((h) => h.entry.path)).toEqual(['x.addObservation']);
    expect(searchCatalog(catalog, 'remember').map((h) => h.entry.path)).toEqual(['x.echo']);
  });

  it('matches the synonyms of a query word (folder → directory, people → entities), below the word itself', () => {
    const catalog: Catalog = {
      entries: [
        entry('x.listDirectory', { name: searchWords('list directory') }),
        entry('x.createRelations', { name: searchWords('create relations'), doc: searchWords('between entities') }),
        entry('x.deleteEntities', { name: searchWords('delete entities') }),
        entry('x.folderColor', { name: searchWords('folder color') }),
      ],
      modules: new Map(),
    };
    const paths = (query: string) => searchCatalog(catalog, query).map((h) => h.entry.path);
    expect(paths('show what is in a directory')[0]).toBe('x.listDirectory');
    expect(paths('show what is in a folder')[0]).toBe('x.listDirectory');
    expect(paths('connect two people')[0]).toBe('x.createRelations');
    expect(paths('remove a person')[0]).toBe('x.deleteEntities');
    // The word itself beats its synonym; a synonym is matched whole, never by prefix or typo.
    expect(paths('folder')).toEqual(['x.folderColor', 'x.listDirectory']);
    expect(paths('fold')).toEqual(['x.folderColor']);
    expect(paths('fodler')).toEqual(['x.folderColor']);
    // Words in no group match as before.
    expect(paths('train')).toEqual([]);
  });
  it('finds a function by its declarations (enum values, result types), derived word forms, and skips question words', async () => {
    const c = await catalogOf();
    // "fahrenheit" is only an enum value of getWeather's `unit`; "WeatherResult" its result type.
    for (const query of ['fahrenheit', 'in fahrenheit please', 'weatherresult']) expect(searchCatalog(c, query)[0]?.entry.path).toBe('weather.getWeather');
    // A word the function has (schedule) matches a longer query word starting with it; never a short one.
    expect(searchCatalog(c, 'scheduler')[0]?.entry.path).toBe('trainSchedule.getSchedule');
    // Question words are left out, unless nothing else is left.
    expect(searchCatalog(c, 'which stops does a train make')[0]!.entry.path).toBe('trainSchedule.getTrainDetails');
    expect(searchCatalog(c, 'what which how')).toEqual([]);
  });
});

describe('formatSearch', () => {
  it('shows names, one-line signatures or full docs grouped by module', async () => {
    const c = await catalogOf();
    const hits = searchCatalog(c, 'weather');
    expect(formatSearch('weather', hits, 'names', 5, c)).toBe("// import { weather } from '@capabilities/weather'\nweather.getWeather");
    expect(formatSearch('weather', hits, 'signatures', 5, c)).toBe(
      "// import { weather } from '@capabilities/weather'\n" +
        'weather.getWeather(params: { location: string; unit?: "celsius" | "fahrenheit" }): Promise<WeatherResult> // Get current weather for a location',
    );
    const full = formatSearch('weather', hits, 'full', 5, c);
    expect(full).toContain('/**\n * Get current weather for a location\n */');
    expect(full).toContain('export interface WeatherResult');
  });

  it('says how many more matched beyond the limit, and what exists when nothing matched', async () => {
    const c = await catalogOf();
    const hits = searchCatalog(c, 'get train schedule');
    expect(hits.length).toBeGreaterThan(1);
    expect(formatSearch('x', hits, 'names', 1, c)).toContain(`${hits.length - 1} more match`);
    expect(formatSearch('zebra', [], 'names', 5, c)).toContain('@capabilities/train-schedule');
  });
});
