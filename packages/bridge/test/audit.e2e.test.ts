import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '@agent-spaces/capabilities';
import { AuditLog, auditLogFile, createBridge, createPolicy, readAuditLog, type AuditCallRecord } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;
let dir: string;
beforeAll(async () => {
  ({ dir } = await makeProject());
});

describe('the audit log', () => {
  it('records every call: params redacted, the decision and who made it, outcome and duration', async () => {
    const file = auditLogFile(dir, 'records');
    const log = new AuditLog(file, 'records', { fsync: true });
    const mail = memoryCapability('mail', [
      { name: 'send', requiresApproval: true, run: () => 'sent' },
      { name: 'read', run: () => 'read' },
    ]);
    const bridge = createBridge({
      capabilities: [mail],
      policy: createPolicy({ rules: { 'mail.read': [{ when: { folder: 'secret' }, then: 'deny' }] } }),
      onApproval: (r) => ({ approved: (r.params as { to: string }).to !== 'eve', by: 'test-approver' }),
      redactor: createRedactor(new Map([['API_TOKEN', 'tok-123456789']])),
      audit: log,
    });
    const origin = { runId: 'run-7', sessionId: 'session-1' };
    await bridge.call(msg('mail', 'send', { to: 'bob', token: 'tok-123456789' }), signal, origin);
    await bridge.call(msg('mail', 'send', { to: 'eve' }), signal, origin);
    await bridge.call(msg('mail', 'read', { folder: 'secret' }), signal);
    await bridge.call(msg('mail', 'read', {}), signal);
    await bridge.call(msg('mail', 'forged', { x: 1 }), signal);
    log.close();

    const { records, malformed } = readAuditLog(file);
    expect(malformed).toBe(0);
    const strip = ({ time, durationMs, ...rest }: AuditCallRecord) => (expect(Date.parse(time)).not.toBeNaN(), expect(durationMs).toBeGreaterThanOrEqual(0), rest);
    expect(records.map(strip)).toEqual([
      {
        space: 'records',
        runId: 'run-7',
        sessionId: 'session-1',
        callId: '1',
        capability: 'mail',
        function: 'send',
        params: { to: 'bob', token: '[REDACTED:API_TOKEN]' },
        decision: { kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'test-approver' },
        outcome: { ok: true },
      },
      {
        space: 'records',
        runId: 'run-7',
        sessionId: 'session-1',
        callId: '2',
        capability: 'mail',
        function: 'send',
        params: { to: 'eve' },
        decision: { kind: 'ask', by: 'requiresApproval', approved: false, answeredBy: 'test-approver' },
        outcome: { ok: false, code: 'APPROVAL_DENIED', message: expect.stringContaining('not approved') },
      },
      {
        space: 'records',
        callId: '3',
        capability: 'mail',
        function: 'read',
        params: { folder: 'secret' },
        decision: { kind: 'deny', by: 'policies.rules["mail.read"][0]', reason: 'denied by policies.rules["mail.read"][0]' },
        outcome: { ok: false, code: 'POLICY_DENIED', message: expect.any(String) },
      },
      { space: 'records', callId: '4', capability: 'mail', function: 'read', params: {}, decision: { kind: 'allow', by: 'default' }, outcome: { ok: true } },
      {
        space: 'records',
        callId: '5',
        capability: 'mail',
        function: 'forged',
        params: '(not valid params)',
        outcome: { ok: false, code: 'FUNCTION_NOT_FOUND', message: expect.any(String) },
      },
    ]);
    expect(await readFile(file, 'utf8')).not.toContain('tok-123456789');
  });

  it('appends across bridges and filters by time', async () => {
    const file = auditLogFile(dir, 'append');
    for (let i = 0; i < 2; i++) {
      const log = new AuditLog(file, 'append');
      await createBridge({ capabilities: [memoryCapability('c', [{ name: 'f' }])], audit: log }).call(msg('c', 'f'), signal);
      log.close();
    }
    expect(readAuditLog(file).records).toHaveLength(2);
    expect(readAuditLog(file, { since: new Date(Date.now() + 60_000) }).records).toHaveLength(0);
    expect(readAuditLog(join(dir, 'missing.jsonl'))).toEqual({ records: [], malformed: 0 });
  });

  it('writes params past 8 KiB as a preview, BigInt params as unserializable, and non-ASCII text whole', async () => {
    const file = auditLogFile(dir, 'shapes');
    const log = new AuditLog(file, 'shapes');
    const bridge = createBridge({ capabilities: [memoryCapability('c', [{ name: 'f', run: () => 1 }])], audit: log });
    await bridge.call(msg('c', 'f', { big: 'x'.repeat(9000) }), signal);
    await bridge.call(msg('c', 'f', { n: 10n }), signal);
    await bridge.call(msg('c', 'f', { text: 'Zürich → 東京 🚆' }), signal, { runId: 'run "quoted"' });
    log.close();
    const { records, malformed } = readAuditLog(file);
    expect(malformed).toBe(0);
    expect(records.map((r) => r.params)).toEqual([
      { truncated: true, preview: `{"big":"${'x'.repeat(8192 - 8)}` },
      { unserializable: true },
      { text: 'Zürich → 東京 🚆' },
    ]);
    expect(records[2]).toMatchObject({ space: 'shapes', runId: 'run "quoted"', callId: '3', decision: { kind: 'allow', by: 'default' }, outcome: { ok: true } });
  });

  it('fails the call closed when the record cannot be written', async () => {
    const log = new AuditLog(auditLogFile(dir, 'closed'), 'closed');
    log.close();
    const outcome = await createBridge({ capabilities: [memoryCapability('c', [{ name: 'f', run: () => 1 }])], audit: log }).call(msg('c', 'f'), signal);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('writes a line when a call starts waiting for approval, before the person is asked, then the call\'s own line', async () => {
    const file = auditLogFile(dir, 'pending');
    const log = new AuditLog(file, 'pending');
    const linesWhenAsked: string[][] = [];
    const bridge = createBridge({
      capabilities: [memoryCapability('files', [{ name: 'deleteFile', requiresApproval: true, run: () => 'deleted' }])],
      onApproval: async () => {
        linesWhenAsked.push((await readFile(file, 'utf8')).trim().split('\n'));
        return { approved: true, by: 'test-approver' };
      },
      redactor: createRedactor(new Map([['API_TOKEN', 'tok-123456789']])),
      audit: log,
    });
    expect(await bridge.call(msg('files', 'deleteFile', { path: 'a.txt', token: 'tok-123456789' }), signal, { runId: 'run-1' })).toMatchObject({ ok: true });
    log.close();
    const pending = {
      space: 'pending',
      runId: 'run-1',
      callId: '1',
      capability: 'files',
      function: 'deleteFile',
      params: { path: 'a.txt', token: '[REDACTED:API_TOKEN]' },
      pending: 'approval',
      decision: { kind: 'ask', by: 'requiresApproval', message: 'Allow files.deleteFile({"path":"a.txt","token":"[REDACTED:API_TOKEN]"})?' },
    };
    expect(linesWhenAsked).toHaveLength(1);
    expect(linesWhenAsked[0]!.map((line) => JSON.parse(line) as unknown)).toEqual([{ time: expect.any(String), ...pending }]);
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { time: expect.any(String), ...pending },
      expect.objectContaining({ callId: '1', decision: { kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'test-approver' }, outcome: { ok: true } }),
    ]);
    expect(lines[1]).not.toHaveProperty('pending');
    // The rate limits' history counts ended calls only: the question is not a second call.
    expect(readAuditLog(file).records.map((r) => r.callId)).toEqual(['1']);
  });

  it('writes no pending line when nobody can be asked, and does not ask a question it cannot put on record', async () => {
    const file = auditLogFile(dir, 'unasked');
    const log = new AuditLog(file, 'unasked');
    const gated = memoryCapability('files', [{ name: 'deleteFile', requiresApproval: true, run: () => 'deleted' }]);
    await createBridge({ capabilities: [gated], audit: log }).call(msg('files', 'deleteFile', {}), signal);
    log.close();
    expect((await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ decision: expect.objectContaining({ answeredBy: 'no-approver' }) }),
    ]);
    let asked = 0;
    const bridge = createBridge({ capabilities: [gated], audit: log, onApproval: () => (asked++, true) });
    expect(await bridge.call(msg('files', 'deleteFile', {}), signal)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(asked).toBe(0);
  });

  it('refuses a space name that is not a file name', () => {
    expect(() => auditLogFile(dir, '../escape')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('audit durability under kill -9', () => {
  it('has no torn line and every completed call after the host is killed mid-run', async () => {
    const entry = join(dir, 'child-entry.ts');
    const bundle = join(dir, 'child.mjs');
    const src = resolve(import.meta.dirname, '../src');
    await writeFile(
      entry,
      `import { AuditLog } from ${JSON.stringify(join(src, 'stores', 'audit-log.ts'))};
       import { createBridge } from ${JSON.stringify(join(src, 'bridge.ts'))};
       const log = new AuditLog(process.argv[2], 'killed');
       const execute = async (params) => params.n;
       const capability = { id: 'c', exportName: 'c', config: {}, functions: new Map([['f', { name: 'f', sourceName: 'f', parameters: { type: 'object' }, requiresApproval: false, execute }]]) };
       const bridge = createBridge({ capabilities: [capability], audit: log });
       const signal = new AbortController().signal;
       const pad = 'x'.repeat(3000);
       let n = 0;
       const worker = async () => {
         for (;;) {
           const outcome = await bridge.call({ kind: 'call', capability: 'c', function: 'f', params: { n: ++n, pad } }, signal);
           process.stdout.write('done ' + outcome.value + '\\n');
         }
       };
       for (let i = 0; i < 4; i++) worker();`,
    );
    await build({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', conditions: ['@agent-spaces/source'], logLevel: 'silent' });

    const file = join(dir, 'killed.jsonl');
    const child = spawn(process.execPath, [bundle, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const done = new Set<number>();
    let buffered = '';
    await new Promise<void>((resolveKilled) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) done.add(Number(line.slice(5)));
        if (done.size >= 300 && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', () => resolveKilled());
    });

    // Every line but a partial last one (a write the kill stopped between two pages: its call never completed) is whole.
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.pop();
    const logged = new Set(lines.map((line) => (JSON.parse(line) as AuditCallRecord & { params: { n: number } }).params.n));
    expect(lines.length).toBeGreaterThanOrEqual(done.size);
    expect([...done].filter((n) => !logged.has(n))).toEqual([]);
    // Opened again, the log has no partial line left.
    new AuditLog(file, 'killed').close();
    expect(await readFile(file, 'utf8')).toBe(lines.map((line) => `${line}\n`).join(''));
  }, 60_000);

  it('drops a partial last line when opened, so the next line starts on its own', async () => {
    const file = join(dir, 'partial.jsonl');
    const whole = JSON.stringify({ time: new Date().toISOString(), space: 'partial', callId: '1', capability: 'c', function: 'f', params: {}, outcome: { ok: true }, durationMs: 1 });
    await writeFile(file, `${whole}\n${whole}\n${'{"time":"2026-11-24T00:00:00.000Z","params":"'.padEnd(5000, 'x')}`);
    const log = new AuditLog(file, 'partial');
    const bridge = createBridge({ capabilities: [memoryCapability('mail', [{ name: 'read', run: () => 'read' }])], audit: log });
    await bridge.call(msg('mail', 'read', {}), signal);
    log.close();
    const { records, malformed } = readAuditLog(file);
    expect(malformed).toBe(0);
    expect(records.map((r) => r.callId)).toEqual(['1', '1', '1']);
    expect(records[2]).toMatchObject({ space: 'partial', capability: 'mail', function: 'read' });

    await writeFile(file, 'x'.repeat(9000));
    new AuditLog(file, 'partial').close();
    expect(await readFile(file, 'utf8')).toBe('');
  });
});
