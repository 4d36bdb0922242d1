// The skill owner records of a folder shared by several processes (`mcp serve` replicas on one project): processes
// that record owners at the same moment each keep theirs — none overwrites another's record with what it read before.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const OWNERS = fileURLToPath(new URL('../dist/skill-owners.js', import.meta.url));
const folders: string[] = [];

afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A child process that records `count` skills `<prefix><i>` as its own, one after another. */
function recorder(folder: string, prefix: string, count: number): Promise<unknown> {
  const script = `
    const { recordOwner } = await import(${JSON.stringify(OWNERS)});
    for (let i = 0; i < ${count}; i++) await recordOwner(${JSON.stringify(folder)}, '${prefix}' + i, 'text ' + i, '${prefix}-client');
  `;
  return promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
}

describe('owner records written by several processes at once', () => {
  it('keep every record: 4 processes × 15 skills', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'skill-owners-'));
    folders.push(folder);
    await writeFile(join(folder, '.owners.json'), '{}\n');
    await Promise.all(['a', 'b', 'c', 'd'].map((prefix) => recorder(folder, prefix, 15)));
    const records = JSON.parse(await readFile(join(folder, '.owners.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(records).sort()).toEqual(['a', 'b', 'c', 'd'].flatMap((p) => Array.from({ length: 15 }, (_, i) => `${p}${i}`)).sort());
  });
});
