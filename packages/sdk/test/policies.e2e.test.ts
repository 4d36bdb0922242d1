// Approvals, policies, rate limits, redaction and the audit log through createSpace(): real sandbox, real bridge,
// JSON capabilities built into a temporary folder, a real HTTP server for the secret-carrying capability.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoliciesConfig, RunEvent } from '@agent-spaces/capabilities';
import { readAuditLog } from '@agent-spaces/bridge';
import { buildCapabilities } from '@agent-spaces/compiler';
import { createSpace, type Space, type SpaceOptions } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const TOKEN = 'sk-policy-test-7c1d9e2b4f';
process.env.POLICY_TEST_TOKEN = TOKEN;
process.env.POLICY_TEST_EXTRA = 'extra-secret-5150';

let project: Project;
let outDir: string;
let server: Server;
const ran: string[] = [];

const FILES = {
  name: 'files',
  functions: [
    {
      name: 'deleteFile',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      requiresApproval: true,
      approvalMessage: 'Delete file: {path}?',
    },
    { name: 'readFile', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  ],
  executor: { kind: 'runtime' },
};
const MAIL = {
  name: 'mail',
  functions: [{ name: 'send', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } }],
  config: { rateLimit: { requests: 3, period: 'minute' } },
  executor: { kind: 'runtime' },
};

const handlers: SpaceOptions['handlers'] = {
  files: {
    deleteFile: ({ path }: { path: string }) => (ran.push(`delete ${path}`), { deleted: path }),
    readFile: ({ path }: { path: string }) => (ran.push(`read ${path}`), `contents of ${path}`),
  },
  mail: { send: ({ to }: { to: string }) => (ran.push(`send ${to}`), { sent: to }) },
};

beforeAll(async () => {
  project = await makeProject();
  outDir = project.path('out');
  server = createServer((req, res) => {
    // Echoes what it received, the Authorization header included, and fails loudly on /fail: a leaky upstream.
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const fn = (JSON.parse(body) as { function: string }).function;
      res.writeHead(fn === 'fail' ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ authorization: req.headers.authorization, extra: process.env.POLICY_TEST_EXTRA }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/call`;
  const LEAKY = {
    name: 'leaky',
    functions: [{ name: 'echo' }, { name: 'fail' }],
    executor: { kind: 'http', url, headers: { authorization: 'Bearer ${POLICY_TEST_TOKEN}' } },
  };
  await mkdir(project.path('caps'));
  for (const [file, definition] of Object.entries({ files: FILES, mail: MAIL, leaky: LEAKY })) {
    await writeFile(join(project.dir, 'caps', `${file}.json`), JSON.stringify(definition));
  }
  const report = await buildCapabilities({ rootDir: project.dir, sources: ['caps/*.json'], outDir });
  expect(report.capabilities.map((c) => c.status)).toEqual(['built', 'built', 'built']);
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const open = (options: Partial<SpaceOptions> = {}) =>
  createSpace({ rootDir: project.dir, outDir, handlers, typecheck: false, limits: { timeoutMs: 20_000 }, ...options });

async function withSpace<T>(options: Partial<SpaceOptions>, body: (space: Space) => Promise<T>): Promise<T> {
  const space = await open(options);
  try {
    return await body(space);
  } finally {
    await space.close();
  }
}

describe('approval in a run', () => {
  it('pauses the gated call, emits approvalRequired with the seed fields, and lets the other parallel calls finish', async () => {
    ran.length = 0;
    await withSpace({ name: 'parallel', awaitApprovals: true }, async (space) => {
      const events: RunEvent[] = [];
      const run = space.run(
        `import { files } from '@capabilities/files';
         const [deleted, ...reads] = await Promise.all([files.deleteFile({ path: 'important.txt' }), files.readFile({ path: 'a' }), files.readFile({ path: 'b' })]);
         return { deleted, reads };`,
        {
          onEvent: (event) => {
            events.push(event);
            // Answer only once both reads have finished: they must not wait for the approval.
            if (event.type === 'capabilityResult' && events.filter((e) => e.type === 'capabilityResult').length === 2) {
              const request = events.find((e) => e.type === 'approvalRequired');
              if (request?.type === 'approvalRequired') space.approvals.resolve(request.id, { approved: true, reason: 'fine' });
            }
          },
        },
      );
      const result = await run;
      expect(result).toMatchObject({ ok: true, result: { deleted: { deleted: 'important.txt' }, reads: ['contents of a', 'contents of b'] } });
      const request = events.find((e) => e.type === 'approvalRequired')!;
      expect(Object.keys(request).sort()).toEqual(['callId', 'capability', 'function', 'id', 'message', 'params', 'runId', 'seq', 'source', 'timestamp', 'type']);
      expect(request).toMatchObject({
        type: 'approvalRequired',
        source: 'capability',
        capability: 'files',
        function: 'deleteFile',
        params: { path: 'important.txt' },
        message: 'Delete file: important.txt?',
      });
      expect(ran).toEqual(['read a', 'read b', 'delete important.txt']);
      expect(events.find((e) => e.type === 'approvalResolved')).toMatchObject({ approved: true, by: 'resolve', reason: 'fine' });
    });
  });

  it('throws ApprovalDeniedError in agent code when denied, and the executor never runs', async () => {
    ran.length = 0;
    await withSpace({ name: 'denied', onApproval: () => ({ approved: false, reason: 'not on a Friday' }) }, async (space) => {
      const result = await space.run(
        `import { files } from '@capabilities/files';
         try { await files.deleteFile({ path: '/etc/hosts' }); return 'ran'; }
         catch (e) { return [e instanceof ApprovalDeniedError, e instanceof CapabilityError, e.name, e.code, e.message]; }`,
      );
      expect(result).toMatchObject({ ok: true, result: [true, true, 'ApprovalDeniedError', 'APPROVAL_DENIED', expect.stringContaining('not on a Friday')] });
      expect(ran).toEqual([]);
    });
  });

  it('denies a pending approval when it times out', async () => {
    ran.length = 0;
    await withSpace({ name: 'timeout', awaitApprovals: true, policies: { approvalTimeoutMs: 100 } }, async (space) => {
      const result = await space.run(`import { files } from '@capabilities/files'; return files.deleteFile({ path: 'x' }).catch((e) => e.code);`);
      expect(result).toMatchObject({ ok: true, result: 'APPROVAL_DENIED' });
      expect(result.events.find((e) => e.type === 'approvalResolved')).toMatchObject({ approved: false, by: 'timeout' });
      expect(ran).toEqual([]);
    });
  });

  it('asks for the whole script, showing its code, before anything runs', async () => {
    ran.length = 0;
    const code = `import { files } from '@capabilities/files'; return files.readFile({ path: 'script' });`;
    const seen: string[] = [];
    await withSpace(
      { name: 'script', policies: { approveScripts: true }, onApproval: (r) => (seen.push(`${String((r.params as { code?: string }).code)}`), r.id.startsWith('script-') ? seen.length === 1 : true) },
      async (space) => {
        expect(await space.run(code)).toMatchObject({ ok: true, result: 'contents of script' });
        const denied = await space.run(code);
        expect(denied).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED' } });
        expect(denied.events.find((e) => e.type === 'approvalRequired')).toMatchObject({ source: 'script', params: { code } });
      },
    );
    expect(seen).toEqual([code, code]);
    expect(ran).toEqual(['read script']);
  });
});

describe('policies in a run', () => {
  const policies: PoliciesConfig = {
    rules: {
      'files.deleteFile': [{ when: { path: { within: '/tmp' } }, then: 'allow' }, { then: 'deny' }],
      'mail.send': [{ when: { to: { endsWith: '@example.com' } }, then: 'allow' }, { then: 'ask' }],
    },
  };

  it('applies argument rules: allowed, asked and denied calls in one script', async () => {
    ran.length = 0;
    const asked: string[] = [];
    await withSpace({ name: 'rules', policies, onApproval: (r) => (asked.push(r.function), false) }, async (space) => {
      const result = await space.run(
        `import { files } from '@capabilities/files';
         import { mail } from '@capabilities/mail';
         const attempt = (p) => p.then(() => 'ok', (e) => e.code);
         return [
           await attempt(files.deleteFile({ path: '/tmp/x' })),
           await attempt(files.deleteFile({ path: '/tmp/../etc/passwd' })),
           await attempt(mail.send({ to: 'bob@example.com' })),
           await attempt(mail.send({ to: 'eve@elsewhere.test' })),
         ];`,
      );
      expect(result).toMatchObject({ ok: true, result: ['ok', 'POLICY_DENIED', 'ok', 'APPROVAL_DENIED'] });
      expect(ran).toEqual(['delete /tmp/x', 'send bob@example.com']);
      expect(asked).toEqual(['send']);
    });
  });

  it('headless toolPermission: never runs gated calls, tool refuses them, always refuses everything', async () => {
    const script = `import { files } from '@capabilities/files';
      return Promise.all([files.deleteFile({ path: 'x' }), files.readFile({ path: 'y' })].map((p) => p.then(() => 'ok', (e) => e.code)));`;
    const results: Record<string, unknown> = {};
    for (const mode of ['never', 'tool', 'always'] as const) {
      results[mode] = await withSpace({ name: `mode-${mode}`, policies: { toolPermission: mode } }, async (space) => ((await space.run(script)) as { result?: unknown }).result);
    }
    expect(results).toEqual({ never: ['ok', 'ok'], tool: ['APPROVAL_DENIED', 'ok'], always: ['APPROVAL_DENIED', 'APPROVAL_DENIED'] });
  });
});

describe('rate limits across runs and sessions', () => {
  it('counts every run and session of a space, and fails over the limit with RATE_LIMITED and retryAfterMs', async () => {
    await withSpace({ name: 'limits' }, async (space) => {
      const send = `import { mail } from '@capabilities/mail'; return mail.send({ to: 'a@example.com' }).then(() => 'ok', (e) => [e.code, e.data.retryAfterMs > 0]);`;
      const session = space.createSession();
      const outcomes = [await space.run(send), await session.run(send), await space.run(send), await session.run(send)];
      expect(outcomes.map((o) => (o as { result?: unknown }).result)).toEqual(['ok', 'ok', 'ok', ['RATE_LIMITED', true]]);
    });
  });

  it('holds across processes of a space: a new space of the same name starts from the audit log', async () => {
    const send = `import { mail } from '@capabilities/mail'; return mail.send({ to: 'a@example.com' }).then(() => 'ok', (e) => e.code);`;
    const first = await withSpace({ name: 'limits-restart' }, async (space) => [await space.run(send), await space.run(send)]);
    const second = await withSpace({ name: 'limits-restart' }, async (space) => [await space.run(send), await space.run(send)]);
    const other = await withSpace({ name: 'limits-other' }, async (space) => [await space.run(send)]);
    expect([...first, ...second, ...other].map((o) => (o as { result?: unknown }).result)).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED', 'ok']);
  });
});

describe('secrets never reach the agent', () => {
  it('redacts ${VAR} values and configured secrets from results, errors, logs and events', async () => {
    await withSpace({ name: 'secrets', policies: { secrets: ['POLICY_TEST_EXTRA'] } }, async (space) => {
      const run = space.run(
        `import { leaky } from '@capabilities/leaky';
         const echoed = await leaky.echo();
         console.log('echoed', JSON.stringify(echoed));
         const failed = await leaky.fail().catch((e) => ({ code: e.code, message: e.message, data: e.data }));
         if (echoed.authorization.includes('REDACTED')) console.warn(echoed.authorization);
         return { echoed, failed };`,
      );
      const streamed: RunEvent[] = [];
      for await (const event of run) streamed.push(event);
      const result = await run;
      const everything = JSON.stringify({ result, streamed, events: run.events });
      expect(result.ok).toBe(true);
      expect(everything).not.toContain(TOKEN);
      expect(everything).not.toContain('extra-secret-5150');
      expect(everything).toContain('Bearer [REDACTED:POLICY_TEST_TOKEN]');
      expect(everything).toContain('[REDACTED:POLICY_TEST_EXTRA]');
      expect(result.ok && result.logs.map((l) => l.message)).toEqual([expect.stringContaining('[REDACTED:POLICY_TEST_TOKEN]'), 'Bearer [REDACTED:POLICY_TEST_TOKEN]']);
      const audit = await readFile(space.auditFile!, 'utf8');
      expect(audit).not.toContain(TOKEN);
    });
  });
});

describe('the audit log of a space', () => {
  it('holds one line per call with the decision and who made it', async () => {
    await withSpace({ name: 'audited', onApproval: () => ({ approved: true, by: 'test-operator' }) }, async (space) => {
      const result = await space.run(
        `import { files } from '@capabilities/files'; await files.deleteFile({ path: 'a' }); await files.readFile({ path: 'b' }); return 1;`,
      );
      expect(space.auditFile).toBe(join(outDir, 'audit', 'audited.jsonl'));
      const { records } = readAuditLog(space.auditFile!);
      const runId = result.events[0]!.runId;
      expect(records.slice(-2)).toMatchObject([
        { space: 'audited', runId, function: 'deleteFile', params: { path: 'a' }, decision: { kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'test-operator' }, outcome: { ok: true } },
        { space: 'audited', runId, function: 'readFile', decision: { kind: 'allow', by: 'default' }, outcome: { ok: true } },
      ]);
    });
  });

  it('writes nothing when policies.audit is false', async () => {
    await withSpace({ name: 'unaudited', policies: { audit: false } }, async (space) => {
      expect(space.auditFile).toBeUndefined();
      await space.run(`import { files } from '@capabilities/files'; return files.readFile({ path: 'b' });`);
      expect(readAuditLog(join(outDir, 'audit', 'unaudited.jsonl')).records).toEqual([]);
    });
  });
});
