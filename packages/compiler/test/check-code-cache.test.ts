// The typecheck workers' V8 code cache of TypeScript: written after a check, taken by the next worker, and a cache V8
// refuses (garbage, another build's) only costs a compile: TypeScript still loads and checks alike. Each load runs in
// a worker thread of its own, as in the pool: one isolate compiles a source once and would not read the cache again.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-code-cache-'));
/** In this package's node_modules/.cache, where the bundle finds typescript as the check worker does. */
const bundleDir = fileURLToPath(new URL('../node_modules/.cache/agent-spaces-compiler-test/', import.meta.url));
const bundle = join(bundleDir, `code-cache-${process.pid}.mjs`);

beforeAll(async () => {
  await mkdir(bundleDir, { recursive: true });
  const driver = `
    import { parentPort, workerData } from 'node:worker_threads';
    import { loadTypeScript } from './typescript-code-cache.ts';
    const { typescript, codeCache, saveCodeCache } = loadTypeScript(workerData.dir);
    const file = typescript.createSourceFile('/a.ts', "const n: number = 'x';", typescript.ScriptTarget.ES2022);
    const host = { ...typescript.createCompilerHost({}), getSourceFile: (name) => (name === '/a.ts' ? file : undefined), fileExists: (name) => name === '/a.ts' };
    const program = typescript.createProgram({ rootNames: ['/a.ts'], options: { noLib: true, noEmit: true }, host });
    const codes = program.getSemanticDiagnostics(file).map((d) => d.code);
    saveCodeCache();
    parentPort.postMessage({ codeCache, codes });`;
  await build({
    stdin: { contents: driver, resolveDir: fileURLToPath(new URL('../src/check/', import.meta.url)), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: ['typescript'],
    outfile: bundle,
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(bundle, { force: true });
});

/** Loads TypeScript in a new worker thread with the cache in `dir`, checks a one-error program, saves the cache. */
function load(): Promise<{ codeCache: string; codes: number[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(bundle, { workerData: { dir } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('TypeScript code cache', () => {
  it('is written once a worker checked, then used by the next worker', async () => {
    expect(await load()).toEqual({ codeCache: 'none', codes: [2322] });
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^typescript-.+-nodev.+\.v8$/);
    expect(await load()).toEqual({ codeCache: 'used', codes: [2322] });
  });

  it.each([
    ['garbage', Buffer.from('not a code cache')],
    ['an empty file', Buffer.alloc(0)],
    ['zeros', Buffer.alloc(64 * 1024)],
  ])('loads and checks alike over a cache holding %s, then writes a good one', async (_name, bytes) => {
    const [name] = await readdir(dir);
    await writeFile(join(dir, name!), bytes);
    expect(await load()).toEqual({ codeCache: 'rejected', codes: [2322] });
    expect(await load()).toEqual({ codeCache: 'used', codes: [2322] });
  });
});
