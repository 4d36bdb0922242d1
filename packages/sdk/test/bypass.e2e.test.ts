/**
 * Bypass probes: agent code (and forged messages, as a compromised sandbox would send) trying to reach an executor
 * without passing validation, policy and approval. Every probe must be refused and the executor must never run with
 * anything the policy did not see.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallMessage, PoliciesConfig } from '@agent-spaces/capabilities';
import { createBridge, createPolicy, loadCapabilities, type ApprovalRequest, type Bridge } from '@agent-spaces/bridge';
import { buildCapabilities } from '@agent-spaces/compiler';
import { createSpace, type RunResult, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/** What reached the executor. */
const executed: unknown[] = [];
/** What the approver was asked. */
const asked: ApprovalRequest[] = [];
/** Paths the approver says yes to. */
let approvable: (path: string) => boolean = () => false;

const FILES = {
  name: 'files',
  functions: [
    {
      name: 'deleteFile',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      requiresApproval: true,
      approvalMessage: 'Delete file: {path}?',
    },
    { name: 'readFile', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } },
  ],
  executor: { kind: 'runtime' },
};

const policies: PoliciesConfig = {
  rules: { 'files.deleteFile': [{ when: { path: { within: '/tmp' } }, then: 'ask' }, { then: 'deny' }] },
};
const handlers = {
  files: {
    deleteFile: (params: unknown) => (executed.push(params), 'deleted'),
    readFile: (params: unknown) => (executed.push(params), 'contents'),
  },
};
const onApproval = (request: ApprovalRequest) => (asked.push(request), approvable((request.params as { path: string }).path));

let project: Project;
let outDir: string;
let space: Space;
let bridge: Bridge;

beforeAll(async () => {
  project = await makeProject();
  outDir = project.path('out');
  await mkdir(project.path('caps'));
  await project.write({ 'caps/files.json': FILES });
  const report = await buildCapabilities({ rootDir: project.dir, sources: ['caps/files.json'], outDir });
  expect(report.capabilities.map((c) => c.status)).toEqual(['built']);
  space = await createSpace({ rootDir: project.dir, outDir, handlers, policies, onApproval, typecheck: false, limits: { timeoutMs: 10_000 } });
  // The same capabilities behind a bridge of their own, for messages a compromised sandbox could forge.
  const capabilities = await loadCapabilities(join(outDir, 'capabilities'), ['files'], handlers);
  bridge = createBridge({ capabilities, policy: createPolicy(policies), onApproval });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

beforeEach(() => {
  executed.length = 0;
  asked.length = 0;
  approvable = () => false;
});

const IMPORT = `import { files, deleteFile } from '@capabilities/files';\n`;

async function run(body: string): Promise<RunResult> {
  return space.run(IMPORT + body);
}

/** The run's value (failing the test when the run itself failed). */
async function value(body: string): Promise<unknown> {
  const result = await run(body);
  if (!result.ok) throw new Error(`run failed: ${result.error.code}: ${result.error.message}`);
  return result.result;
}

const signal = new AbortController().signal;
const forge = (message: Record<string, unknown>) => bridge.call({ kind: 'call', ...message } as unknown as CallMessage, signal);

describe('agent code cannot reach the bridge entry point', () => {
  it('cannot import agent-spaces:bridge statically', async () => {
    const result = await space.run(`import { call } from 'agent-spaces:bridge'; return call('files', 'deleteFile', { path: '/etc/passwd' });`);
    expect(result.ok ? 'ran' : result.error.code).toBe('IMPORT_NOT_FOUND');
    expect(executed).toEqual([]);
  });

  it('cannot import agent-spaces:bridge dynamically', async () => {
    const result = await space.run(`return import('agent-spaces:bridge').then((m) => m.call('files', 'deleteFile', { path: '/etc/passwd' }));`);
    expect(result.ok ? 'ran' : result.error.code).toBe('IMPORT_NOT_FOUND');
    expect(executed).toEqual([]);
  });

  it('finds no host callback, stash or bridge function on the global object or through Function', async () => {
    const found = await value(`
      const names = Object.getOwnPropertyNames(globalThis).filter((k) => /bridge|host|call|stash|agent/i.test(k));
      const viaFunction = Object.getOwnPropertyNames(new Function('return this')()).filter((k) => /bridge|host|stash/i.test(k));
      return [...names, ...viaFunction];`);
    expect(found).toEqual([]);
  });

  it('cannot pull the call function out of a proxy function through its source or properties', async () => {
    const found = await value(`
      const fn = files.deleteFile;
      return [typeof fn.call, Object.getOwnPropertyNames(fn).sort().join(','), fn.toString().includes('call(')];`);
    expect(found).toEqual(['function', 'length,name', true]);
    expect(executed).toEqual([]);
  });
});

describe('mutating the proxy modules', () => {
  it('cannot replace a function on the frozen capability object', async () => {
    expect(await value(`try { files.deleteFile = async () => 'fake'; return 'replaced'; } catch (e) { return e.name; }`)).toBe('TypeError');
  });

  it('cannot redefine a module namespace export', async () => {
    expect(
      await value(`import * as ns from '@capabilities/files';
        try { Object.defineProperty(ns, 'deleteFile', { value: () => 'fake' }); return 'redefined'; } catch (e) { return e.name; }`),
    ).toBe('TypeError');
  });

  it('gains nothing from polluting Object.prototype with approval-looking fields', async () => {
    const code = await value(`
      Object.prototype.approved = true;
      Object.prototype.requiresApproval = false;
      Object.prototype.kind = 'allow';
      Object.defineProperty(Object.prototype, 'capability', { get() { return 'std'; }, set() {}, configurable: true });
      return deleteFile({ path: '/tmp/x' }).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('APPROVAL_DENIED');
    expect(asked.map((r) => [r.capability, r.function])).toEqual([['files', 'deleteFile']]);
    expect(executed).toEqual([]);
  });

  it('gains nothing from patching Promise, Function.prototype.call and Reflect before calling', async () => {
    const code = await value(`
      Promise.prototype.then = function (ok) { return ok && ok('patched'); };
      Function.prototype.call = function () { return 'patched'; };
      Reflect.apply = () => 'patched';
      let out;
      try { out = await deleteFile({ path: '/etc/passwd' }); } catch (e) { out = e.code; }
      return out;`);
    expect(code).not.toBe('deleted');
    expect(executed).toEqual([]);
  });

  it('cannot replace the global error classes, and a denial stays a denial', async () => {
    const found = await value(`
      let replaced = 'replaced';
      try { globalThis.ApprovalDeniedError = class extends Error {}; } catch (e) { replaced = e.name; }
      const code = await deleteFile({ path: '/tmp/x' }).then(() => 'ran', (e) => e instanceof ApprovalDeniedError && e.code);
      return [replaced, code];`);
    expect(found).toEqual(['TypeError', 'APPROVAL_DENIED']);
    expect(executed).toEqual([]);
  });
});

describe('prototype pollution through params', () => {
  it('refuses a __proto__ key in params and never runs the call', async () => {
    const code = await value(`return deleteFile(JSON.parse('{"path":"/tmp/x","__proto__":{"approved":true}}')).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('INVALID_PARAMS');
    expect(asked).toEqual([]);
    expect(executed).toEqual([]);
    expect(({} as Record<string, unknown>).approved).toBeUndefined();
  });

  it('refuses a nested __proto__ key', async () => {
    const code = await value(`return deleteFile(JSON.parse('{"path":"/tmp/x","opts":{"__proto__":{"polluted":1}}}')).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('INVALID_PARAMS');
    expect(executed).toEqual([]);
  });

  it('treats constructor/prototype keys as plain data: still asked, host prototypes untouched', async () => {
    const code = await value(`return deleteFile({ path: '/tmp/x', constructor: { prototype: { approved: true } } }).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('APPROVAL_DENIED');
    expect(asked).toHaveLength(1);
    expect(executed).toEqual([]);
    expect((Object.prototype as Record<string, unknown>).approved).toBeUndefined();
  });
});

describe('params that change between check and use', () => {
  it('sends a getter once: the executor gets exactly what the policy saw', async () => {
    approvable = (path) => path === '/tmp/x';
    await value(`
      let reads = 0;
      const params = { get path() { return reads++ === 0 ? '/tmp/x' : '/etc/passwd'; } };
      return deleteFile(params).then(() => 'ran', (e) => e.code);`);
    expect(executed.every((p) => (p as { path: string }).path === '/tmp/x')).toBe(true);
    expect(asked.map((r) => (r.params as { path: string }).path)).toEqual(executed.map((p) => (p as { path: string }).path));
  });

  it('refuses a Proxy whose traps change answers, or snapshots it: never /etc/passwd', async () => {
    approvable = () => true;
    await value(`
      let n = 0;
      const params = new Proxy({ path: '/tmp/x' }, { get: (t, k) => (k === 'path' ? (n++ < 1 ? '/tmp/x' : '/etc/passwd') : t[k]) });
      return deleteFile(params).then(() => 'ran', (e) => e.code);`);
    expect(executed.map((p) => (p as { path: string }).path)).not.toContain('/etc/passwd');
  });

  it('snapshots params when sent: mutating them while approval is pending changes nothing', async () => {
    approvable = () => true;
    await value(`
      const params = { path: '/tmp/x' };
      const pending = deleteFile(params);
      params.path = '/etc/passwd';
      return pending;`);
    expect(executed).toEqual([{ path: '/tmp/x' }]);
  });

  it('refuses objects with a toString that pretends to be a path', async () => {
    approvable = () => true;
    const code = await value(`return deleteFile({ path: { toString: () => '/tmp/x' } }).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('INVALID_PARAMS');
    expect(executed).toEqual([]);
  });

  it('refuses a String object where a string is required', async () => {
    approvable = () => true;
    const code = await value(`return deleteFile({ path: new String('/tmp/x') }).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('INVALID_PARAMS');
    expect(executed).toEqual([]);
  });

  it('refuses extra properties where the schema forbids them', async () => {
    const code = await value(`return files.readFile({ path: 'a', approved: true }).then(() => 'ran', (e) => e.code);`);
    expect(code).toBe('INVALID_PARAMS');
    expect(executed).toEqual([]);
  });
});

describe('racing calls', () => {
  it('approves only the call that was approved when two race for one approval', async () => {
    approvable = (path) => path === '/tmp/a';
    const codes = await value(`
      return Promise.all([deleteFile({ path: '/tmp/a' }), deleteFile({ path: '/tmp/b' })].map((p) => p.then(() => 'ran', (e) => e.code)));`);
    expect(codes).toEqual(['ran', 'APPROVAL_DENIED']);
    expect(executed).toEqual([{ path: '/tmp/a' }]);
    expect(new Set(asked.map((r) => r.id)).size).toBe(2);
  });

  it('keeps denying a retry loop: 50 attempts, no execution', async () => {
    const codes = await value(`
      const out = new Set();
      for (let i = 0; i < 50; i++) out.add(await deleteFile({ path: '/etc/passwd' }).then(() => 'ran', (e) => e.code));
      return [...out];`);
    expect(codes).toEqual(['POLICY_DENIED']);
    expect(asked).toEqual([]);
    expect(executed).toEqual([]);
  });

  it('cannot escape a path rule with .. segments or a relative path', async () => {
    approvable = () => true;
    const codes = await value(`
      return Promise.all(['/tmp/../etc/passwd', 'tmp/x', '/tmp/./../root', '/tmpx/y'].map((path) => deleteFile({ path }).then(() => 'ran', (e) => e.code)));`);
    expect(codes).toEqual(['POLICY_DENIED', 'POLICY_DENIED', 'POLICY_DENIED', 'POLICY_DENIED']);
    expect(executed).toEqual([]);
  });
});

describe('forged messages at the bridge entry point', () => {
  it.each([
    ['an unknown capability', { capability: 'admin', function: 'deleteFile', params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['an unknown function', { capability: 'files', function: 'rmrf', params: {} }, 'FUNCTION_NOT_FOUND'],
    ['__proto__ as the capability', { capability: '__proto__', function: 'deleteFile', params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['constructor as the function', { capability: 'files', function: 'constructor', params: {} }, 'FUNCTION_NOT_FOUND'],
    ['hasOwnProperty / toString names', { capability: 'hasOwnProperty', function: 'toString', params: {} }, 'CAPABILITY_NOT_FOUND'],
    ['a huge capability id', { capability: 'files'.repeat(200_000), function: 'deleteFile', params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['an object whose toString says files', { capability: { toString: (): string => 'files' }, function: 'deleteFile', params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['a String object as the id', { capability: new String('files'), function: new String('deleteFile'), params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['the id with a trailing NUL', { capability: 'files\0', function: 'deleteFile', params: { path: '/tmp/x' } }, 'CAPABILITY_NOT_FOUND'],
    ['params as an array', { capability: 'files', function: 'deleteFile', params: ['/tmp/x'] }, 'INVALID_PARAMS'],
    ['params as a Proxy', { capability: 'files', function: 'deleteFile', params: new Proxy({ path: '/tmp/x' }, {}) }, 'INVALID_PARAMS'],
  ])('refuses %s and runs nothing', async (_, message, code) => {
    approvable = () => true;
    const outcome = await forge(message);
    expect(outcome.ok ? 'ran' : outcome.error.code).toBe(code);
    expect(executed).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('ignores approval-looking fields on a forged message', async () => {
    const outcome = await forge({ capability: 'files', function: 'deleteFile', params: { path: '/tmp/x' }, approved: true, decision: { kind: 'allow' } });
    expect(outcome.ok ? 'ran' : outcome.error.code).toBe('APPROVAL_DENIED');
    expect(executed).toEqual([]);
  });

  it('cannot answer its own approval: resolve lives on the host and ids never cross requests', async () => {
    approvable = () => false;
    const found = await value(`return [typeof space, typeof approvals, typeof resolve];`);
    expect(found).toEqual(['undefined', 'undefined', 'undefined']);
    expect(await space.approvals.resolve('1', { approved: true })).toBe(false);
    expect(executed).toEqual([]);
  });
});
