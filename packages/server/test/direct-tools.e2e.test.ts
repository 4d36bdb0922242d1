// Direct tools beside code (issue 33, item 2): `spaces[].directTools` serves chosen capability functions as MCP tools of
// their own, through the same bridge as calls from code — approvals, audit log with the principal, shared rate limits,
// validation. Over the real code-mode host with official SDK clients, and over a spawned `mcp serve --stdio`.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@agent-spaces/capabilities';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PRINCIPAL_KEY } from '../src/connection.js';
import { createCodeModeHost, type CodeModeHost, type CodeModeServerOptions } from '../src/server.js';
import { callTool, newClient, type ElicitAnswer } from './support/client.js';
import { stdioServe } from './support/serve.js';
import { createProject, type TestProject } from './support/project.js';

const DETAILS_CODE = "import { trainSchedule } from '@capabilities/trains';\nreturn await trainSchedule.getTrainDetails({ trainId: 'IC 7' });";
const DELETE_CODE = `import { vault } from '@capabilities/vault';
try { return await vault.deleteSecrets(); } catch (error) { return { code: (error as { code: string }).code }; }`;
const GREETER = {
  name: 'greeter',
  description: 'Greets people',
  functions: [{ name: 'greet', description: 'Greet someone by name', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, returns: { type: 'string' } }],
  executor: { kind: 'module', module: './greeter.handlers.mjs' },
};
const CAUGHT_DETAILS_CODE = `import { trainSchedule } from '@capabilities/trains';
try { return await trainSchedule.getTrainDetails({ trainId: 'IC 7' }); } catch (error) { return { code: (error as { code: string }).code }; }`;
const BOB: Principal = { id: 'user:bob', subject: 'bob', scopes: [], groups: [] };
const ALICE: Principal = { id: 'user:alice', subject: 'alice', scopes: [], groups: ['ops'] };

let project: TestProject;
const hosts: CodeModeHost[] = [];

beforeAll(async () => {
  project = await createProject({
    'capabilities/greeter.json': JSON.stringify(GREETER),
    'capabilities/greeter.handlers.mjs': 'export async function greet({ name }) { return `Hello, ${name}!`; }\n',
  });
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  await project?.cleanup();
}, 120_000);

function host(options: Partial<CodeModeServerOptions> = {}, directTools = ['trains.*', 'vault.deleteSecrets']): CodeModeHost {
  const made = createCodeModeHost({
    spaces: [{ id: 'travel', name: 'Travel', directTools }],
    ...options,
    space: { rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process', ...options.space },
  });
  hosts.push(made);
  return made;
}

/** A client of `on`, acting for `principal` (as the HTTP front door's `authInfo` would say), answering elicitations with `elicit`. */
async function connect(on: CodeModeHost, principal?: Principal, elicit?: ElicitAnswer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (principal) {
    const authInfo = { token: `token-of-${principal.id}`, clientId: 'test', scopes: [], extra: { [PRINCIPAL_KEY]: principal } };
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => send(message, { ...options, authInfo });
  }
  const client = newClient(elicit);
  await on.createServer().connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** The audit log lines of every space of the project, parsed. */
async function auditLines(): Promise<Record<string, unknown>[]> {
  const dir = join(project.outDir, 'audit');
  const texts = await Promise.all((await readdir(dir)).filter((f) => f.endsWith('.jsonl')).map((f) => readFile(join(dir, f), 'utf8')));
  return texts.flatMap((text) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));
}

describe('direct tools: listing and answers', () => {
  it('lists each matched function as a tool with its built schemas and answers a call', async () => {
    const client = await connect(host());
    try {
      const { tools } = await client.listTools();
      const direct = tools.filter((t) => ['trains_getSchedule', 'trains_getTrainDetails', 'vault_deleteSecrets'].includes(t.name));
      expect(direct.map((t) => t.name)).toEqual(['trains_getSchedule', 'trains_getTrainDetails', 'vault_deleteSecrets']);
      const details = direct[1]!;
      expect(details).toMatchObject({ title: 'trainSchedule.getTrainDetails', description: 'Get details for a specific train' });
      expect(details.inputSchema).toMatchObject({ type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] });
      expect(details.outputSchema).toMatchObject({ type: 'object', required: ['id', 'stops'] });
      // An array result has no output schema (MCP's must be an object); no hint is claimed that nothing says.
      expect(direct[0]!.outputSchema).toBeUndefined();
      expect(direct[0]!.annotations?.readOnlyHint).toBeUndefined();
      const result = await client.callTool({ name: 'trains_getTrainDetails', arguments: { trainId: 'IC 7' } });
      expect(result.structuredContent).toEqual({ id: 'IC 7', stops: ['Central', 'Airport'] });
      const schedule = await callTool(client, 'trains_getSchedule', { station: 'North' });
      expect(schedule.body).toEqual([
        { id: 'IC 1', hour: 7, destination: 'South' },
        { id: 'IC 2', hour: 13, destination: 'Airport' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('refuses hostile arguments with INVALID_ARGUMENTS before any handler runs', async () => {
    const client = await connect(host());
    try {
      const variants: Record<string, unknown>[] = [
        {},
        { trainId: 42 },
        { trainId: null },
        { trainId: ['IC 1'] },
        { trainId: { $gt: '' } },
        { trainId: true },
        JSON.parse('{"__proto__": {"trainId": "IC 1"}}') as Record<string, unknown>,
      ];
      for (const args of variants) {
        const answer = await callTool(client, 'trains_getTrainDetails', args);
        expect(answer.isError, JSON.stringify(args)).toBe(true);
        expect(answer.body.code, JSON.stringify(args)).toBe('INVALID_ARGUMENTS');
      }
      const before = project.deletions.length;
      for (const args of [{ all: true }, { approved: true }]) {
        // Extra keys are not approvals: the gated call still needs one (no elicitation here, so it is denied).
        expect((await callTool(client, 'vault_deleteSecrets', args)).body.code).toBe('APPROVAL_DENIED');
      }
      expect(project.deletions.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('direct tools go through the bridge as code does', () => {
  it('asks for approval as a call from code does: runs when approved, denied when declined or headless', async () => {
    const on = host();
    const asked: string[] = [];
    const approve = await connect(on, undefined, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const decline = await connect(on, undefined, () => ({ action: 'decline' }));
    const headless = await connect(on);
    try {
      const before = project.deletions.length;
      expect((await callTool(approve, 'vault_deleteSecrets')).body).toEqual({ deleted: 3 });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('deleteSecrets');
      expect(project.deletions.length).toBe(before + 1);
      for (const client of [decline, headless]) {
        const direct = await callTool(client, 'vault_deleteSecrets');
        const fromCode = await callTool(client, 'execute', { code: DELETE_CODE });
        expect(direct).toMatchObject({ isError: true, body: { code: 'APPROVAL_DENIED' } });
        expect(fromCode.body.result).toEqual({ code: 'APPROVAL_DENIED' });
      }
      expect(project.deletions.length).toBe(before + 1);
    } finally {
      for (const client of [approve, decline, headless]) await client.close();
    }
  });

  it('writes the same kind of audit line as a call from code, with the principal', async () => {
    const client = await connect(host(), ALICE);
    try {
      await callTool(client, 'trains_getTrainDetails', { trainId: 'IC 7' });
      await callTool(client, 'execute', { code: DETAILS_CODE });
      const lines = (await auditLines()).filter((l) => l.function === 'getTrainDetails' && (l.principal as { id?: string } | undefined)?.id === ALICE.id);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      const [direct, fromCode] = [lines.find((l) => l.runId === undefined), lines.find((l) => l.runId !== undefined)];
      expect(direct).toBeDefined();
      expect(fromCode).toBeDefined();
      const kind = (line: Record<string, unknown>) => Object.keys(line).filter((k) => k !== 'runId' && k !== 'sessionId').sort();
      expect(kind(direct!)).toEqual(kind(fromCode!));
      expect(direct).toMatchObject({ capability: 'trains', params: { trainId: 'IC 7' }, principal: { id: ALICE.id }, outcome: fromCode!.outcome });
    } finally {
      await client.close();
    }
  });

  it('shares a rate limit with calls from code', async () => {
    // Per user, so that the calls of the other tests (another principal) do not count.
    const rateLimits = { 'trains.getTrainDetails': { requests: 2, period: 'minute' as const, per: 'user' as const } };
    const client = await connect(host({ space: { policies: { rateLimits } } }), BOB);
    const fromCode = async () => (await callTool(client, 'execute', { code: CAUGHT_DETAILS_CODE })).body.result;
    try {
      expect(await fromCode()).toMatchObject({ id: 'IC 7' });
      expect((await callTool(client, 'trains_getTrainDetails', { trainId: 'IC 7' })).isError).toBe(false);
      expect((await callTool(client, 'trains_getTrainDetails', { trainId: 'IC 7' })).body.code).toBe('RATE_LIMITED');
      expect(await fromCode()).toEqual({ code: 'RATE_LIMITED' });
    } finally {
      await client.close();
    }
  });
});

describe('direct tools in the config', () => {
  it('refuses at start a pattern that matches nothing, or a name already taken, with CONFIG_INVALID', () => {
    for (const patterns of [['trains.nope'], ['nothing.*'], ['trains.*', 'vault.delete']]) {
      expect(() => host({}, patterns), patterns.join()).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(patterns.at(-1)!) }));
    }
    const taken = { name: 'trains_getSchedule', description: 'mine', parameters: { type: 'object' as const, properties: {} }, code: 'return 1' };
    expect(() => createCodeModeHost({ spaces: [{ id: 'travel', name: 'Travel', directTools: ['trains.*'], tools: [taken] }], space: { rootDir: project.rootDir } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('trains_getSchedule') }),
    );
    for (const bad of ['notes', '', 'a b.c', 'trains.get Schedule']) {
      expect(() => host({}, [bad]), bad).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
  });

  it('serves them from the config file over a spawned `mcp serve --stdio`', async () => {
    const config = { capabilities: ['capabilities/*.json'], spaces: [{ id: 'travel', name: 'Travel', directTools: ['greeter.greet'] }] };
    await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify(config));
    const transport = stdioServe(project.rootDir);
    const client = newClient();
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('greeter_greet');
      expect(names).not.toContain('trains_getSchedule');
      expect(await callTool(client, 'greeter_greet', { name: 'stdio' })).toEqual({ isError: false, text: 'Hello, stdio!', body: 'Hello, stdio!' });
      expect((await callTool(client, 'greeter_greet', { name: 7 })).body.code).toBe('INVALID_ARGUMENTS');
    } finally {
      await client.close();
    }
  }, 60_000);
});
