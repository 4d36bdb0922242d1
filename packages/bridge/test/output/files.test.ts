import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CAPABILITY_FILES, capabilitiesDir } from '@agent-spaces/capabilities';
import { listBuiltCapabilities, readBuiltFile, readBuiltJson } from '../../src/output-entry.js';
import { makeProject } from '../../../../test/fixtures/project.js';

let outDir: string;
let dir: string;

beforeEach(async () => {
  ({ dir: outDir } = await makeProject());
  dir = capabilitiesDir(outDir);
});

/** Writes the files of capability `id` into the output folder. */
async function built(id: string, files: Record<string, string>): Promise<void> {
  await mkdir(join(dir, id), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, id, name), text);
}

describe('listBuiltCapabilities', () => {
  it('lists capability folders sorted, without hidden ones', async () => {
    await built('weather', { 'meta.json': '{}' });
    await built('alarm', { 'meta.json': '{}' });
    await mkdir(join(dir, '.staging'));
    await writeFile(join(dir, 'stray.txt'), '');
    expect(listBuiltCapabilities(dir)).toEqual(['alarm', 'weather']);
  });

  it('fails with CAPABILITY_NOT_FOUND, saying to build, when nothing was built', () => {
    expect(() => listBuiltCapabilities(dir)).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND', data: { dir } }));
    expect(() => listBuiltCapabilities(dir)).toThrow(/agent-spaces capabilities build/);
  });
});

describe('readBuiltFile and readBuiltJson', () => {
  it('read a file of a built capability', async () => {
    await built('trains', { 'index.js': 'export {};', 'meta.json': '{"id":"trains"}' });
    expect(readBuiltFile(dir, 'trains', CAPABILITY_FILES.proxy)).toBe('export {};');
    expect(readBuiltJson(dir, 'trains', CAPABILITY_FILES.meta)).toEqual({ id: 'trains' });
  });

  it('fail with CAPABILITY_NOT_FOUND naming the missing file', async () => {
    const file = join(dir, 'trains', 'meta.json');
    expect(() => readBuiltJson(dir, 'trains', CAPABILITY_FILES.meta)).toThrowError(
      expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND', data: { id: 'trains', file } }),
    );
    await built('trains', { 'index.js': '' });
    expect(() => readBuiltJson(dir, 'trains', CAPABILITY_FILES.meta)).toThrow(file);
  });

  it('fail with CAPABILITY_NOT_FOUND for an id that would leave the folder', async () => {
    await writeFile(join(outDir, 'meta.json'), '{}');
    for (const id of ['..', '../capabilities', 'a/b', '']) {
      expect(() => readBuiltFile(dir, id, CAPABILITY_FILES.meta)).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }));
    }
  });

  it('fail with INVALID_JSON naming a corrupt file', async () => {
    await built('trains', { 'meta.json': '{"id": ' });
    const file = join(dir, 'trains', 'meta.json');
    expect(() => readBuiltJson(dir, 'trains', CAPABILITY_FILES.meta)).toThrowError(expect.objectContaining({ code: 'INVALID_JSON', data: { id: 'trains', file } }));
  });

  it('fail with SOURCE_UNREADABLE when the file cannot be read', async () => {
    await built('trains', {});
    await mkdir(join(dir, 'trains', 'meta.json'));
    expect(() => readBuiltFile(dir, 'trains', CAPABILITY_FILES.meta)).toThrowError(expect.objectContaining({ code: 'SOURCE_UNREADABLE' }));
  });
});
