import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CAPABILITY_FILES,
  CATALOG_VERSION,
  capabilitiesDir,
  capabilityIdOf,
  editorTsconfig,
  listBuiltCapabilities,
  readBuiltFile,
  readBuiltJson,
  readCatalog,
  resolveOutDir,
  type CapabilityCatalog,
} from '../src/index.js';

let outDir: string;
let dir: string;

beforeEach(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'agent-spaces-output-'));
  dir = capabilitiesDir(outDir);
});

afterEach(async () => {
  await rm(outDir, { recursive: true, force: true });
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

describe('paths', () => {
  it('puts the output folder in the project unless outDir says otherwise, and capabilities in it', () => {
    expect(resolveOutDir('/project')).toBe(join('/project', '.agent-spaces'));
    expect(resolveOutDir('/project', 'out')).toBe(join('/project', 'out'));
    expect(capabilitiesDir('/project/out')).toBe(join('/project/out', 'capabilities'));
  });

  it("points a folder's editor tsconfig at the output folder's fragment, wherever both are", () => {
    const extendsOf = (folder: string, out: string) => JSON.parse(editorTsconfig(folder, out)) as { extends: string; include: string[] };
    expect(extendsOf('/project/agents', '/project/.agent-spaces')).toEqual({ extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] });
    expect(extendsOf('/project', '/project/.agent-spaces').extends).toBe('./.agent-spaces/tsconfig.json');
    expect(extendsOf('/project/a/b', '/project/build/out').extends).toBe('../../build/out/tsconfig.json');
    expect(extendsOf('/project/out/agents', '/project/out').extends).toBe('../tsconfig.json');
  });
});

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

describe('capabilityIdOf', () => {
  it("names an MCP server's capability 'mcp:<server>' as its id 'mcp-<server>', and leaves ids as they are", () => {
    expect(capabilityIdOf('mcp:memory')).toBe('mcp-memory');
    expect(capabilityIdOf('mcp-memory')).toBe('mcp-memory');
    expect(capabilityIdOf('train-schedule')).toBe('train-schedule');
  });
});
