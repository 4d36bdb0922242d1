import { describe, expect, it } from 'vitest';
import { buildCatalog, words } from '../src/catalog.js';
import { formatSearch, searchCatalog } from '../src/search.js';

const TRAINS = `declare module '@capabilities/train-schedule' {
  export interface Trip {
    id: string;
    /** Departure hour. */
    hour: number;
    destination: string;
  }
  export interface GetScheduleParams {
    station?: string;
    date?: string;
  }
  export interface GetTrainDetailsParams {
    trainId: string;
  }
  export const trainSchedule: {
    /** Get all scheduled trains. Filters by station when given. */
    getSchedule(params?: GetScheduleParams): Promise<Trip[]>;
    /** Get details for a specific train */
    getTrainDetails(params: GetTrainDetailsParams): Promise<{ id: string; stops: string[] }>;
  };
  /** Get all scheduled trains. Filters by station when given. */
  export function getSchedule(params?: GetScheduleParams): Promise<Trip[]>;
}
`;

const WEATHER = `export interface WeatherResult {
  temperature: number;
  unit: string;
}
/** Get current weather for a location */
export declare function getWeather(params: { location: string; unit?: 'celsius' | 'fahrenheit' }): Promise<WeatherResult>;
`;

const STD = `export declare namespace time {
  /** Milliseconds since the epoch. */
  function now(): number;
}
export declare const fs: {
  /** Read a text file of the workspace. */
  readFile(params: { path: string }): Promise<string>;
};
`;

async function catalog() {
  return buildCatalog(
    new Map([
      ['sandbox-globals.d.ts', 'declare const console: { log(...args: unknown[]): void };'],
      ['agent-spaces-std.d.ts', STD],
      ['train-schedule.d.ts', TRAINS],
      ['weather.d.ts', WEATHER],
    ]),
  );
}

describe('buildCatalog', () => {
  it('lists object methods, exported functions and namespace members, once each, with their modules', async () => {
    const { entries, modules } = await catalog();
    expect(entries.map((e) => `${e.module} ${e.path}`).sort()).toEqual([
      '@agent-spaces/std fs.readFile',
      '@agent-spaces/std time.now',
      '@capabilities/train-schedule trainSchedule.getSchedule',
      '@capabilities/train-schedule trainSchedule.getTrainDetails',
      '@capabilities/weather getWeather',
    ]);
    expect([...modules.keys()].sort()).toEqual(['@agent-spaces/std', '@capabilities/train-schedule', '@capabilities/weather']);
  });

  it('inlines a local params interface into a one-line signature and keeps the doc summary', async () => {
    const entry = (await catalog()).entries.find((e) => e.path === 'trainSchedule.getSchedule')!;
    expect(entry.signature).toBe('trainSchedule.getSchedule(params?: { station?: string; date?: string }): Promise<Trip[]>');
    expect(entry.summary).toBe('Get all scheduled trains.');
    expect(entry.related.join('\n')).toContain('export interface GetScheduleParams');
    expect(entry.related.join('\n')).toContain('/** Departure hour. */');
  });
});

describe('searchCatalog', () => {
  it('ranks a name match above a doc match and leaves out what matches nothing', async () => {
    const hits = searchCatalog(await catalog(), 'train details');
    expect(hits[0]!.entry.path).toBe('trainSchedule.getTrainDetails');
    expect(hits.map((h) => h.entry.path)).not.toContain('getWeather');
  });

  it('matches word forms and prefixes (schedules → schedule, temp → temperature is not a function)', async () => {
    expect(searchCatalog(await catalog(), 'schedules')[0]!.entry.path).toBe('trainSchedule.getSchedule');
    expect(searchCatalog(await catalog(), 'weath')[0]!.entry.path).toBe('getWeather');
    expect(searchCatalog(await catalog(), 'zebra')).toEqual([]);
  });

  it('leaves out hits scoring under half the best one', async () => {
    // getSchedule matches "get" and (in its object path) "train", but not "details".
    const hits = searchCatalog(await catalog(), 'get train details');
    expect(hits.map((h) => h.entry.path)).toEqual(['trainSchedule.getTrainDetails']);
  });

  it('splits camelCase, snake_case and kebab-case and drops stop words', () => {
    expect(words('getTrainDetails list_channels mcp-slack the')).toEqual(['get', 'train', 'detail', 'list', 'channel', 'mcp', 'slack']);
  });
});

describe('formatSearch', () => {
  it('shows names, one-line signatures or full docs grouped by module', async () => {
    const c = await catalog();
    const hits = searchCatalog(c, 'weather');
    expect(formatSearch('weather', hits, 'names', 5, c)).toBe("// from '@capabilities/weather'\ngetWeather");
    expect(formatSearch('weather', hits, 'signatures', 5, c)).toBe(
      "// from '@capabilities/weather'\n" +
        "getWeather(params: { location: string; unit?: 'celsius' | 'fahrenheit' }): Promise<WeatherResult> // Get current weather for a location",
    );
    const full = formatSearch('weather', hits, 'full', 5, c);
    expect(full).toContain('/**\n * Get current weather for a location\n */');
    expect(full).toContain('export interface WeatherResult');
  });

  it('says how many more matched beyond the limit, and what exists when nothing matched', async () => {
    const c = await catalog();
    const hits = searchCatalog(c, 'get train schedule');
    expect(hits.length).toBeGreaterThan(1);
    expect(formatSearch('x', hits, 'names', 1, c)).toContain(`${hits.length - 1} more match`);
    expect(formatSearch('zebra', [], 'names', 5, c)).toContain('@capabilities/train-schedule');
  });
});
