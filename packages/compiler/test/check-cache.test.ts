// The typecheck cache (`cacheDir`): results kept on disk across typecheckers (and processes), keyed by the script, the
// declarations and the checker; broken entries read as misses; the folder stays bounded.
import { mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoundedTypechecker } from '../src/check/index.js';
import { MAX_CACHED_CHECKS } from '../src/check/result-cache.js';
import { declarations } from './check-declarations.js';

const good = `import { trainSchedule } from '@capabilities/train-schedule';\nexport default (await trainSchedule.getSchedule()).length;`;
const bad = `import { trainSchedule } from '@capabilities/train-schedule';\nexport default await trainSchedule.getSchedual();\nconst n: number = 'x';`;

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function cacheDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-check-cache-'));
  folders.push(dir);
  return join(dir, 'cache', 'typecheck');
}

const entries = async (dir: string) => (await readdir(dir)).filter((name) => name.endsWith('.json'));

/** Every entry's diagnostics replaced by one marker diagnostic: a check answering it came from the cache. */
async function markEntries(dir: string): Promise<void> {
  for (const name of await entries(dir)) {
    const entry = JSON.parse(await readFile(join(dir, name), 'utf8')) as { key: string };
    await writeFile(join(dir, name), JSON.stringify({ key: entry.key, diagnostics: [{ code: 1, category: 'error', message: 'from the cache', line: 1, column: 1 }] }));
  }
}

describe('typecheck cache', () => {
  it('answers a script checked before, by another typechecker, with the same diagnostics as a fresh check', async () => {
    const dir = await cacheDir();
    const fresh = await createBoundedTypechecker({ declarations }).check(bad);
    expect(fresh.map((d) => d.code)).toEqual([2551, 2322]);
    expect(await createBoundedTypechecker({ declarations, cacheDir: dir }).check(bad)).toEqual(fresh);
    expect(await entries(dir)).toHaveLength(1);
    expect(await createBoundedTypechecker({ declarations, cacheDir: dir }).check(bad)).toEqual(fresh);
    await markEntries(dir);
    expect((await createBoundedTypechecker({ declarations, cacheDir: dir }).check(bad)).map((d) => d.message)).toEqual(['from the cache']);
  });

  it('checks again when the script or the declarations changed', async () => {
    const dir = await cacheDir();
    expect(await createBoundedTypechecker({ declarations, cacheDir: dir }).check(good)).toEqual([]);
    await markEntries(dir);
    expect(await createBoundedTypechecker({ declarations, cacheDir: dir }).check(`${good}\n`)).toEqual([]);
    const renamed = new Map([...declarations].map(([name, text]) => [name, text.replace('getSchedule(', 'getTimetable(')]));
    expect((await createBoundedTypechecker({ declarations: renamed, cacheDir: dir }).check(good)).map((d) => d.code)).toEqual([2339]);
    expect(await entries(dir)).toHaveLength(3);
  });

  it('keeps no session checks (they depend on the bindings of earlier runs)', async () => {
    const dir = await cacheDir();
    const session = createBoundedTypechecker({ declarations, cacheDir: dir }).createSession('a');
    expect(await session.check('const kept = 41;')).toEqual([]);
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    ['an empty file', ''],
    ['invalid JSON', '{"key": '],
    ['JSON null', 'null'],
    ['no diagnostics', '{"key": "K"}'],
    ['diagnostics not a list', '{"key": "K", "diagnostics": {}}'],
    ['another key', '{"key": "another", "diagnostics": []}'],
  ])('reads an entry holding %s as a miss and writes it again', async (_name, text) => {
    const dir = await cacheDir();
    expect((await createBoundedTypechecker({ declarations, cacheDir: dir }).check(bad)).map((d) => d.code)).toEqual([2551, 2322]);
    const [name] = await entries(dir);
    const key = (JSON.parse(await readFile(join(dir, name!), 'utf8')) as { key: string }).key;
    await writeFile(join(dir, name!), text.replace('"K"', JSON.stringify(key)));
    expect((await createBoundedTypechecker({ declarations, cacheDir: dir }).check(bad)).map((d) => d.code)).toEqual([2551, 2322]);
    expect(JSON.parse(await readFile(join(dir, name!), 'utf8'))).toMatchObject({ key, diagnostics: [{ code: 2551 }, { code: 2322 }] });
  });

  it(`stays within ${MAX_CACHED_CHECKS} entries, dropping the least recently used`, async () => {
    const dir = await cacheDir();
    const checker = createBoundedTypechecker({ declarations, cacheDir: dir });
    await checker.check(good);
    const [used] = await entries(dir);
    const old = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < MAX_CACHED_CHECKS + 20; i++) {
      const file = join(dir, `${String(i).padStart(32, '0')}.json`);
      await writeFile(file, '{}');
      await utimes(file, old, old);
    }
    await utimes(join(dir, used!), old, old);
    expect(await checker.check(good)).toEqual([]);
    await checker.check(`${good}\n// another script`);
    const kept = await entries(dir);
    expect(kept.length).toBeLessThanOrEqual(MAX_CACHED_CHECKS);
    expect(kept).toContain(used);
    expect(kept.filter((name) => name.startsWith('0000000'))).toHaveLength(kept.length - 2);
  });

  it('checks as usual when the cache folder cannot be written', async () => {
    const dir = await cacheDir();
    await writeFile(join(dir, '..'), 'a file where the folder should be');
    const checker = createBoundedTypechecker({ declarations, cacheDir: dir });
    expect((await checker.check(bad)).map((d) => d.code)).toEqual([2551, 2322]);
    expect((await checker.check(bad)).map((d) => d.code)).toEqual([2551, 2322]);
  });
});
