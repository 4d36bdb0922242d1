import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_VERSION, capabilitiesDir, type CapabilityCatalog } from '@agent-spaces/capabilities';
import { readCatalog } from '../../src/output-entry.js';
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

const CATALOG: CapabilityCatalog = {
  version: CATALOG_VERSION,
  types: { Trip: 'export interface Trip {\n    id: string;\n  }' },
  functions: [
    {
      path: 'trains.list',
      function: 'list',
      signature: 'trains.list(): Promise<Trip[]>',
      summary: 'Lists trips.',
      doc: 'Lists trips.',
      related: ['Trip'],
      words: { name: ['list'], module: ['capability', 'train', 'train', 'list'], fields: [], doc: ['list', 'trip'], context: [] },
    },
  ],
};

describe('readCatalog', () => {
  it('gives each function with its module and the declarations of its related types', async () => {
    await built('trains', { 'meta.json': '{}', 'catalog.json': JSON.stringify(CATALOG) });
    expect(readCatalog(dir, 'trains')).toEqual([
      { ...CATALOG.functions[0], module: '@capabilities/trains', related: ['export interface Trip {\n    id: string;\n  }'] },
    ]);
  });

  it('fails with CAPABILITY_STALE, saying to rebuild, for a capability built before catalog.json existed', async () => {
    await built('trains', { 'meta.json': '{}', 'index.d.ts': '' });
    const file = join(dir, 'trains', 'catalog.json');
    expect(() => readCatalog(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'CAPABILITY_STALE', data: { id: 'trains', file } }));
    expect(() => readCatalog(dir, 'trains')).toThrow(/agent-spaces capabilities build --force/);
  });

  it('fails with CAPABILITY_STALE for a catalog.json of another format version', async () => {
    await built('trains', { 'meta.json': '{}', 'catalog.json': JSON.stringify({ ...CATALOG, version: 0 }) });
    expect(() => readCatalog(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'CAPABILITY_STALE' }));
  });

  it('fails with CAPABILITY_NOT_FOUND for a capability that was never built', () => {
    expect(() => readCatalog(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }));
  });

  it('fails with INVALID_JSON or INVALID_DEFINITION naming the file and field of a bad catalog.json', async () => {
    const file = join(dir, 'trains', 'catalog.json');
    await built('trains', { 'meta.json': '{}', 'catalog.json': '{' });
    expect(() => readCatalog(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'INVALID_JSON', data: { id: 'trains', file } }));
    const bad = (fn: Record<string, unknown>) => JSON.stringify({ ...CATALOG, functions: [{ ...CATALOG.functions[0], ...fn }] });
    for (const [text, pointer] of [
      [bad({ signature: 1 }), '/functions/0/signature'],
      [bad({ function: ['list'] }), '/functions/0/function'],
      [bad({ related: ['Nope'] }), '/functions/0/related'],
      [bad({ words: { name: [] } }), '/functions/0/words'],
      [JSON.stringify({ ...CATALOG, types: [] }), '/types'],
      [JSON.stringify({ version: CATALOG_VERSION, types: {} }), '/functions'],
    ]) {
      await writeFile(file, text!);
      expect(() => readCatalog(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'INVALID_DEFINITION', data: { file, pointer } }));
    }
  });
});
