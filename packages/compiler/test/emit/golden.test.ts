import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitDeclarations } from '../../src/emit/declarations.js';
import { readJsonSource } from '../../src/sources/json.js';
import { sourceContext } from '../helpers.js';

const testDir = join(import.meta.dirname, '..');
const update = process.env.UPDATE_GOLDEN === '1';

async function declarationsOf(fixture: string): Promise<string> {
  const result = await readJsonSource(join(testDir, 'fixtures', fixture), sourceContext(testDir));
  expect(result.diagnostics).toEqual([]);
  const emitted = emitDeclarations(result.capabilities[0]!);
  expect(emitted.diagnostics).toEqual([]);
  return emitted.text;
}

async function golden(name: string, text: string): Promise<string> {
  const file = join(testDir, 'golden', name);
  if (update) await writeFile(file, text);
  return readFile(file, 'utf8');
}

describe('golden declarations of the seed examples', () => {
  it('emits the train schedule capability (seed "JSON Schema Format") exactly', async () => {
    const text = await declarationsOf('train-schedule.json');
    expect(text).toBe(await golden('train-schedule.d.ts', text));
  });

  it('emits the OpenAI-style weather tool (seed Example 1, with a titled result) exactly', async () => {
    const text = await declarationsOf('weather.json');
    expect(text).toBe(await golden('weather.d.ts', text));
  });
});
