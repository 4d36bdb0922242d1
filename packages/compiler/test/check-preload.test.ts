// Preloading a typecheck worker before the declarations are known (`agent-spaces run`): the first check uses that
// worker and answers as a check without it; a script checked before (a hint in the cache folder) starts none.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoundedTypechecker, preloadTypechecker } from '../src/check/index.js';
import { CheckResultCache } from '../src/check/result-cache.js';
import { declarations } from './check-declarations.js';

const bad = `import { trainSchedule } from '@capabilities/train-schedule';\nexport default await trainSchedule.getSchedual();\nconst n: number = 'x';`;

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function cacheDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-check-preload-'));
  folders.push(dir);
  return join(dir, 'cache', 'typecheck');
}

/** Counts the worker threads the process starts while `body` runs. */
async function countWorkers<T>(body: () => Promise<T>): Promise<{ result: T; workers: number }> {
  let workers = 0;
  const count = () => workers++;
  process.on('worker', count);
  try {
    return { result: await body(), workers };
  } finally {
    process.off('worker', count);
  }
}

// Each test uses its own heap budget: the process's workers are pooled per heap budget.
describe('preloading a typecheck worker', () => {
  it('checks the first script in the preloaded worker, with the diagnostics of a check without one', async () => {
    const budget = { memoryMb: 301 };
    const { result, workers } = await countWorkers(async () => {
      expect(await preloadTypechecker({ budget })).toBe(true);
      expect(await preloadTypechecker({ budget })).toBe(false);
      return createBoundedTypechecker({ declarations, budget }).check(bad);
    });
    expect(workers).toBe(1);
    expect(result).toEqual(await createBoundedTypechecker({ declarations }).check(bad));
    expect(result.map((d) => d.code)).toEqual([2551, 2322]);
  });

  it('starts no worker for a script checked before, and one for another script', async () => {
    const dir = await cacheDir();
    await createBoundedTypechecker({ declarations, cacheDir: dir, budget: { memoryMb: 302 } }).check(bad);
    expect(await readdir(join(dir, 'scripts'))).toHaveLength(1);
    const { workers } = await countWorkers(async () => {
      expect(await preloadTypechecker({ budget: { memoryMb: 303 }, script: { code: bad, cacheDir: dir } })).toBe(false);
    });
    expect(workers).toBe(0);
    expect(await preloadTypechecker({ budget: { memoryMb: 303 }, script: { code: `${bad}\n`, cacheDir: dir } })).toBe(true);
  });

  it.each([
    ['an empty file', ''],
    ['invalid JSON', '{"key": '],
    ['JSON null', 'null'],
    ['another key', '{"key": "another"}'],
  ])('reads a hint holding %s as "not checked before"', async (_name, text) => {
    const dir = await cacheDir();
    await createBoundedTypechecker({ declarations, cacheDir: dir, budget: { memoryMb: 302 } }).check(bad);
    const cache = new CheckResultCache(dir);
    expect(await cache.checkedBefore(bad)).toBe(true);
    const [name] = await readdir(join(dir, 'scripts'));
    await writeFile(join(dir, 'scripts', name!), text);
    expect(await cache.checkedBefore(bad)).toBe(false);
  });
});
