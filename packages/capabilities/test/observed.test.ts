import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResultRecorder, mergeShapes, observedFile, readObserved, shapeOf } from '../src/index.js';

describe('shapeOf', () => {
  it('keeps types and field names, never a value', () => {
    const shape = shapeOf({ id: 'secret-id-123', count: 3, ratio: 0.5, ok: true, none: null, tags: ['a'], nested: { at: 'x' } });
    expect(shape).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        ok: { type: 'boolean' },
        none: { type: 'null' },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { at: { type: 'string' } }, required: ['at'] },
      },
      required: ['id', 'count', 'ratio', 'ok', 'none', 'tags', 'nested'],
    });
    expect(JSON.stringify(shape)).not.toContain('secret-id-123');
  });

  it.each([
    ['many keys', Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`k${i}`, i]))],
    ['a key that is data (a path)', { '/home/ada/.ssh/id_rsa': 1 }],
    ['a key that is data (a token)', { [`tok_${'x'.repeat(80)}`]: 1 }],
    ['a key with spaces', { 'two words': 1 }],
  ])('makes an object with %s a map, keeping none of its keys', (_, value) => {
    const shape = shapeOf(value);
    expect(shape).toEqual({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('takes the shapes of the first 100 elements of a large array only', () => {
    const big = [...Array.from({ length: 100 }, () => 1), ...Array.from({ length: 100_000 }, () => 'later')];
    expect(shapeOf(big)).toEqual({ type: 'array', items: { type: 'integer' } });
  });

  it('stops at depth 6, and is unknown for what JSON has no type for', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 50; i++) deep = { d: deep };
    expect(JSON.stringify(shapeOf(deep)).match(/"properties"/g)).toHaveLength(6);
    expect(shapeOf(undefined)).toEqual({});
    expect(shapeOf([])).toEqual({ type: 'array' });
  });
});

describe('mergeShapes', () => {
  it('requires only the fields every result had, and widens integer to number', () => {
    const merged = mergeShapes(shapeOf({ a: 1, b: 'x' }), shapeOf({ a: 1.5, c: true }));
    expect(merged).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' }, c: { type: 'boolean' } },
      required: ['a'],
    });
  });

  it('keeps up to 4 alternatives, then gives up to unknown', () => {
    expect(mergeShapes(shapeOf('x'), shapeOf(1))).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    const four = [shapeOf('x'), shapeOf(1), shapeOf(true), shapeOf(null)].reduce((a, b) => mergeShapes(a, b));
    expect(four.anyOf).toHaveLength(4);
    expect(mergeShapes(four, shapeOf([1]))).toEqual({});
    expect(mergeShapes({}, shapeOf('x'))).toEqual({});
  });
});

describe('ResultRecorder', () => {
  let outDir: string;
  beforeEach(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'agent-spaces-observed-'));
  });
  afterEach(() => rm(outDir, { recursive: true, force: true }));

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
