import { watch } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { observedFile } from '@agent-spaces/capabilities';
import { ResultRecorder, readObserved } from '../../src/output-entry.js';
import { makeProject } from '../../../../test/fixtures/project.js';

describe('ResultRecorder', () => {
  let outDir: string;
  beforeEach(async () => {
    ({ dir: outDir } = await makeProject());
  });

  const userShape = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] };

  it('writes the merged shapes and counts on flush, merging into what another process wrote', async () => {
    const first = new ResultRecorder(outDir);
    first.record('mcp-x', 'get-user', { name: 'Ada', age: 36 });
    first.record('mcp-x', 'get-user', { name: 'Bob' });
    expect(readObserved(outDir, 'mcp-x').tools).toEqual({});
    await first.flush();
    const second = new ResultRecorder(outDir);
    second.record('mcp-x', 'get-user', { name: 'Cy', age: 1 });
    await second.flush();
    await first.flush(); // nothing new: the file stays as it is
    expect(readObserved(outDir, 'mcp-x').tools['get-user']).toEqual({ results: 3, schema: userShape });
    const text = await readFile(observedFile(outDir, 'mcp-x'), 'utf8');
    for (const value of ['Ada', 'Bob', 'Cy', '36']) expect(text).not.toContain(value);
    expect(await readdir(join(outDir, 'observed'))).toEqual(['mcp-x.json']);
  });

  it('counts results without data apart, whichever comes first, and never lets them blur the shape', async () => {
    const recorder = new ResultRecorder(outDir);
    recorder.record('mcp-x', 'get-user', undefined);
    recorder.record('mcp-x', 'get-user', { name: 'Ada', age: 36 });
    recorder.record('mcp-x', 'get-user', undefined);
    recorder.record('mcp-x', 'only-text', undefined);
    await recorder.flush();
    recorder.record('mcp-x', 'get-user', { name: 'Bob' });
    recorder.record('mcp-x', 'only-text', undefined);
    await recorder.flush();
    expect(readObserved(outDir, 'mcp-x').tools).toEqual({
      'get-user': { results: 2, schema: userShape, withoutData: 2 },
      'only-text': { results: 0, schema: {}, withoutData: 2 },
    });
  });

  it('reads a missing, corrupt or foreign file as empty, and replaces it', async () => {
    expect(readObserved(outDir, 'mcp-x')).toEqual({ version: 1, tools: {} });
    await mkdir(join(outDir, 'observed'));
    const corrupt = ['{', '[]', '{"version":2,"tools":{}}', '{"version":1,"tools":{"t":{"results":"many","schema":{}}}}', '{"version":1,"tools":{"t":{"results":1,"schema":{},"withoutData":"x"}}}'];
    for (const text of corrupt) {
      await writeFile(observedFile(outDir, 'mcp-x'), text);
      expect(readObserved(outDir, 'mcp-x').tools).toEqual({});
    }
    const recorder = new ResultRecorder(outDir);
    recorder.record('mcp-x', 't', [1]);
    await recorder.flush();
    expect(readObserved(outDir, 'mcp-x').tools.t).toEqual({ results: 1, schema: { type: 'array', items: { type: 'integer' } } });
  });

  it('writes a burst of records without flush, once per file', async () => {
    const folder = join(outDir, 'observed');
    await mkdir(folder);
    // Every replacement of a file is a rename onto its name; the marker written last tells all events have arrived.
    const renames: string[] = [];
    let markerSeen: () => void = () => undefined;
    const marker = new Promise<void>((resolve) => (markerSeen = resolve));
    const watcher = watch(folder, (event, name) => {
      if (name === 'marker') markerSeen();
      else if (event === 'rename' && name?.endsWith('.json')) renames.push(name);
    });
    try {
      const recorder = new ResultRecorder(outDir);
      for (let i = 0; i < 500; i++) {
        recorder.record('mcp-a', 'get-user', { name: `user ${i}`, ...(i % 2 ? {} : { age: i }) });
        recorder.record('mcp-b', 'list', [i]);
      }
      expect(readObserved(outDir, 'mcp-a').tools).toEqual({});
      await expect.poll(() => readObserved(outDir, 'mcp-b').tools.list?.results, { timeout: 10_000 }).toBe(500);
      await expect.poll(() => readObserved(outDir, 'mcp-a').tools['get-user'], { timeout: 10_000 }).toEqual({ results: 500, schema: userShape });
      await recorder.flush(); // nothing pending: writes nothing
      await writeFile(join(folder, 'marker'), '');
      await marker;
      expect(renames.sort()).toEqual(['mcp-a.json', 'mcp-b.json']);
    } finally {
      watcher.close();
    }
  });

  it('keeps the records that arrive while a write is in progress', async () => {
    const recorder = new ResultRecorder(outDir);
    recorder.record('mcp-x', 't', { a: 1 });
    const writing = recorder.flush();
    for (let i = 0; i < 10; i++) recorder.record('mcp-x', 't', { a: i, b: 'x' });
    await recorder.flush();
    await writing;
    expect(readObserved(outDir, 'mcp-x').tools.t).toEqual({
      results: 11,
      schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a'] },
    });
  });

  it.each([2, 5, 20])('loses nothing when %i recorders of one process write one file at once', async (count) => {
    const recorders = Array.from({ length: count }, () => new ResultRecorder(outDir));
    for (const [i, recorder] of recorders.entries()) {
      recorder.record('mcp-x', 'get-user', { name: 'n', age: i });
      recorder.record('mcp-x', `only-${i}`, i);
    }
    await Promise.all(recorders.map((r) => r.flush()));
    const tools = readObserved(outDir, 'mcp-x').tools;
    expect(tools['get-user']?.results).toBe(count);
    expect(Object.keys(tools)).toHaveLength(count + 1);
    expect(await readdir(join(outDir, 'observed'))).toEqual(['mcp-x.json']);
  });

  it.each([
    ['a file where the folder should be', async (dir: string) => (await writeFile(join(dir, 'observed'), 'in the way'), dir)],
    ['a folder where the file should be', async (dir: string) => (await mkdir(join(dir, 'observed', 'mcp-x.json'), { recursive: true }), dir)],
    ['a file where the output folder should be', async (dir: string) => (await writeFile(join(dir, 'out'), 'in the way'), join(dir, 'out'))],
  ])('never throws nor rejects with %s, and leaves nothing behind: the record is lost', async (_, block) => {
    const dir = await block(outDir);
    const before = await readdir(outDir, { recursive: true });
    const recorder = new ResultRecorder(dir);
    expect(() => recorder.record('mcp-x', 't', { a: 1 })).not.toThrow();
    await expect(recorder.flush()).resolves.toBeUndefined();
    // The scheduled write of a later record fails just as quietly (an unhandled rejection would fail the test run).
    recorder.record('mcp-x', 't', { a: 2 });
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(readObserved(dir, 'mcp-x').tools).toEqual({});
    expect(await readdir(outDir, { recursive: true })).toEqual(before);
  });

  it('never throws on a value that cannot be shaped, and keeps it out of the record', async () => {
    const recorder = new ResultRecorder(outDir);
    const hostile = [
      {
        get a(): never {
          throw new Error('getter');
        },
      },
      new Proxy({}, { ownKeys: () => { throw new Error('ownKeys'); } }),
    ];
    for (const value of hostile) expect(() => recorder.record('mcp-x', 't', value)).not.toThrow();
    recorder.record('mcp-x', 't', 'fine');
    await recorder.flush();
    expect(readObserved(outDir, 'mcp-x').tools.t).toEqual({ results: 1, schema: { type: 'string' } });
  });
});
