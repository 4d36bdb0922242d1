import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'acorn';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STD_DTS, STD_MODULE_SOURCE } from '../src/index.js';
import { buildStdModuleSource } from '../src/module-source.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { stdBridge } from './helpers.js';

const sandboxDir = fileURLToPath(new URL('../src/sandbox/', import.meta.url));

let dir: string;
let server: Server;
let base: string;
beforeAll(async () => {
  ({ dir } = await makeProject());
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'] ?? null, body })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('STD_MODULE_SOURCE', () => {
  it('is one ES module whose only import is call from agent-spaces:bridge', () => {
    const program = parse(STD_MODULE_SOURCE, { ecmaVersion: 'latest', sourceType: 'module' });
    const imports = program.body.filter((node) => node.type === 'ImportDeclaration');
    expect(imports.map((node) => [node.source.value, node.specifiers.map((s) => s.local.name)])).toEqual([['agent-spaces:bridge', ['call']]]);
    const exported = program.body.flatMap((node) =>
      node.type === 'ExportNamedDeclaration' ? node.specifiers.map((s) => (s.exported.type === 'Identifier' ? s.exported.name : '')) : [],
    );
    expect(exported.sort()).toEqual(['StdError', 'crypto', 'csv', 'fs', 'http', 'json', 'time']);
    expect(STD_MODULE_SOURCE).not.toMatch(/\brequire\(|\bprocess\.|node:/);
  });

  it('is rebuilt from src/sandbox to the same text (served from the cache)', () => {
    expect(buildStdModuleSource()).toBe(STD_MODULE_SOURCE);
  });

  it('works end to end against a real bridge over the std capability', async () => {
    const { bridge } = stdBridge({ workspaceDir: join(dir, 'workspace'), write: true, http: { allowHosts: ['127.0.0.1'] } });
    const signal = new AbortController().signal;
    const hook = '__stdModuleTestCall';
    (globalThis as Record<string, unknown>)[hook] = async (capability: string, fn: string, params: unknown) => {
      const outcome = await bridge.call({ kind: 'call', capability, function: fn, params }, signal);
      if (outcome.ok) return outcome.value;
      throw Object.assign(new Error(outcome.error.message), { code: outcome.error.code });
    };
    await writeFile(join(dir, 'bridge.mjs'), `export const call = (...args) => globalThis.${hook}(...args);`);
    await writeFile(join(dir, 'std.mjs'), STD_MODULE_SOURCE.replace('"agent-spaces:bridge"', '"./bridge.mjs"'));
    const std = (await import(pathToFileURL(join(dir, 'std.mjs')).href)) as typeof import('../src/sandbox/index.js');

    await std.fs.mkdir('notes');
    await std.fs.writeFile('notes/a.csv', std.csv.stringify([{ id: 1, text: 'hi, there' }]));
    expect(std.csv.parse(await std.fs.readFile('notes/a.csv'), { header: true })).toEqual([{ id: '1', text: 'hi, there' }]);
    expect(await std.fs.readdir('notes')).toEqual([{ name: 'a.csv', type: 'file' }]);
    await expect(std.fs.readFile('../outside.txt')).rejects.toMatchObject({ code: 'ACCESS_DENIED' });

    expect(await std.crypto.hash('sha256', 'abc', 'base64')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');

    const posted = await std.http.post(`${base}/items`, { name: 'x' });
    expect(posted.ok).toBe(true);
    expect(posted.json()).toEqual({ method: 'POST', type: 'application/json', body: '{"name":"x"}' });
    const got = await std.http.get(`${base}/items`);
    expect(got.json<{ method: string }>().method).toBe('GET');
    await expect(std.http.get('https://example.com/')).rejects.toMatchObject({ code: 'ACCESS_DENIED' });

    expect(() => std.json.parse('{"a":}')).toThrowError(std.StdError);
    expect(std.time.toISO(std.time.add('2025-01-31', { months: 1 }))).toBe('2025-02-28T00:00:00.000Z');
    expect(Object.isFrozen(std.fs) && Object.isFrozen(std.json)).toBe(true);
  });
});

describe('STD_DTS', () => {
  const compile = (files: Record<string, string>, roots: string[] = []): string[] => {
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts'],
      types: [],
    };
    const paths = Object.entries(files).map(([name, text]) => {
      const path = join(dir, name);
      ts.sys.writeFile(path, text);
      return path;
    });
    const program = ts.createProgram([...paths, ...roots], options);
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  };

  it('compiles under --strict with a usage file, and rejects misuse', () => {
    const usage = `import { json, csv, time, crypto, fs, http, StdError, type HttpResponse, type StdErrorCode } from '@agent-spaces/std';
const n: number = json.parse<{ a: number }>('{"a":1}').a;
const rows: Record<string, string>[] = csv.parse('a\\n1', { header: true });
const grid: string[][] = csv.parse('a;b', { delimiter: ';' });
const text: string = csv.stringify([{ a: 1 }], { newline: '\\n' }) + json.stringify(rows, { indent: 2, sortKeys: true });
const later: Date = time.add(time.now(), 'P1D');
const stamp: string = time.toISO(later, { timeZone: 'Europe/Oslo' }) + time.format(later, { locale: 'en-GB', dateStyle: 'full' });
const hours: number = time.diff(later, '2025-01-01', 'hours') + (time.parseDuration('PT1H').hours ?? 0);
export async function main(): Promise<unknown> {
  const digest: string = await crypto.hmac('sha256', 'key', 'data', 'base64');
  const entries = await fs.readdir();
  const kind: 'file' | 'directory' | 'symlink' | 'other' | undefined = entries[0]?.type;
  const size: number = (await fs.stat('a.txt')).size;
  const response: HttpResponse = await http.post('https://api.example.com', { a: 1 }, { headers: { x: 'y' }, timeoutMs: 500 });
  const ok: boolean = response.ok && response.json<{ ok: boolean }>().ok;
  try {
    json.parse('{');
  } catch (e) {
    if (e instanceof StdError) {
      const code: StdErrorCode = e.code;
      return code;
    }
  }
  // @ts-expect-error: fs.readFile needs a path
  await fs.readFile();
  // @ts-expect-error: not a hash algorithm
  await crypto.hash('sha3', 'abc');
  // @ts-expect-error: http.get takes no body
  await http.get('https://x', { body: 'no' });
  return [n, grid, text, stamp, hours, digest, kind, size, ok];
}
`;
    expect(compile({ 'std.d.ts': STD_DTS, 'usage.ts': usage })).toEqual([]);
  });

  it('declares exactly what src/sandbox implements', () => {
    const check = `import * as impl from ${JSON.stringify(join(sandboxDir, 'index.js'))};
import type * as declared from '@agent-spaces/std';
export const forward: typeof declared = impl;
export const backward: typeof impl = forward;
`;
    expect(compile({ 'std.d.ts': STD_DTS, 'check.ts': check }, [join(sandboxDir, 'bridge.d.ts')])).toEqual([]);
  });
});
