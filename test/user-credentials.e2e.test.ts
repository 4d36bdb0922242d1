// Per-user upstream credentials end to end: a project whose MCP server and OpenAPI source take `${user:NAME}`, built
// with an operator credential, then called through a space for several principals. Each upstream (real servers on
// 127.0.0.1) must see each principal's own credential, never another's, and nothing for a principal without one.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PRINCIPAL, type Principal, type WireError } from '@agent-spaces/capabilities';
import type { RunResult, Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from './fixtures/project.js';
import { startRecordingMcpServer, startRecordingOpenApiServer, type RecordingUpstream } from './fixtures/recording-upstream.js';

const principal = (sub: string): Principal => ({ id: `user:${sub}`, subject: sub, scopes: [], groups: [] });
const alice = principal('alice');
const bob = principal('bob');
const carol = principal('carol');

const TOKENS = { operator: 'operator-build-token-0', alice: 'alice-upstream-token-1', aliceRotated: 'alice-upstream-token-2', bob: 'bob-upstream-token-1', local: 'local-upstream-token-1' };
const KEYS = { alice: 'alice-people-key-1', bob: 'bob-people-key-1' };
const owners = (values: Record<string, string>, prefix = '') => Object.fromEntries(Object.entries(values).map(([who, token]) => [`${prefix}${token}`, who]));

let project: Project;
let mcp: RecordingUpstream;
let people: RecordingUpstream;
let space: Space;

async function writeSecrets(secrets: Record<string, Record<string, string>>): Promise<void> {
  await writeFile(project.path('secrets/users.json'), JSON.stringify(secrets), { mode: 0o600 });
  await chmod(project.path('secrets/users.json'), 0o600);
}

async function result(run: PromiseLike<RunResult>): Promise<unknown> {
  const ended = await run;
  if (!ended.ok) throw Object.assign(new Error(ended.error.message), { wire: ended.error });
  return ended.result;
}

/** The error the call of `script` threw, caught inside the run (`{ code, message, data }`). */
async function failure(script: string, options: { principal?: Principal } = {}): Promise<WireError> {
  const [imports, call] = script.split('export default ');
  const caught = `${imports}let caught: unknown = null;
    try { await ${call!.replace(/;\s*$/, '')}; } catch (error) { const e = error as WireError; caught = { code: e.code, message: e.message, data: e.data }; }
    interface WireError { code: string; message: string; data?: unknown }
    export default caught;`;
  const error = (await result(space.run(caught, options))) as WireError | null;
  if (error === null) throw new Error('expected the call to fail');
  return error;
}

const WHOAMI = `import { upstream } from '@capabilities/mcp-upstream';
  export default JSON.parse((await upstream.whoami()).text);`;
const GET_ME = `import { people } from '@capabilities/people';
  export default await people.getMe();`;

beforeAll(async () => {
  mcp = await startRecordingMcpServer(owners(TOKENS, 'Bearer '));
  people = await startRecordingOpenApiServer(owners(KEYS));
  project = await makeProject({
    'agent-spaces.config.json': {
      capabilities: [],
      userSecrets: 'secrets/users.json',
      mcpServers: { upstream: { type: 'http', url: `${mcp.url}/mcp`, headers: { Authorization: 'Bearer ${user:UPSTREAM_TOKEN}' } } },
      openapi: [{ name: 'people', url: people.url, auth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', value: '${user:PEOPLE_KEY}' } }],
    },
    'secrets/README': 'the operator keeps users.json here',
  });
  await writeSecrets({
    'user:alice': { UPSTREAM_TOKEN: TOKENS.alice, PEOPLE_KEY: KEYS.alice },
    'user:bob': { UPSTREAM_TOKEN: TOKENS.bob, PEOPLE_KEY: KEYS.bob },
    local: { UPSTREAM_TOKEN: TOKENS.local },
  });
  // The build has no user: `${user:UPSTREAM_TOKEN}` takes the operator's UPSTREAM_TOKEN.
  process.env.UPSTREAM_TOKEN = TOKENS.operator;
  try {
    const report = await project.build();
    expect(report.capabilities.map((c) => c.id).sort()).toEqual(['mcp-upstream', 'people']);
  } finally {
    delete process.env.UPSTREAM_TOKEN;
  }
  space = await project.space({ userSecrets: 'secrets/users.json' });
}, 120_000);

afterAll(async () => {
  await space?.close();
  await mcp?.close();
  await people?.close();
});

describe('an MCP server whose headers hold ${user:NAME}', () => {
  it('was built with the operator credential of the environment', () => {
    expect(mcp.requests.length).toBeGreaterThan(0);
    expect(new Set(mcp.requests.map((r) => r.credential))).toEqual(new Set([`Bearer ${TOKENS.operator}`]));
  });

  it("sends each principal's own credential, over one connection per principal, never mixed", async () => {
    const before = mcp.requests.length;
    const runs = [alice, bob, alice, bob, alice].map((who) => result(space.run(WHOAMI, { principal: who })));
    const answers = (await Promise.all(runs)) as { user: string; authorization: string }[];
    expect(answers.map((a) => a.user)).toEqual(['alice', 'bob', 'alice', 'bob', 'alice']);
    const seen = mcp.requests.slice(before);
    const calls = (token: string) => seen.filter((r) => r.what === 'tools/call' && r.credential === `Bearer ${token}`).length;
    expect([calls(TOKENS.alice), calls(TOKENS.bob)]).toEqual([3, 2]);
    expect(new Set(seen.map((r) => r.credential))).toEqual(new Set([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]));
    // One upstream connection (one initialize) per principal, reused by its later calls.
    expect(seen.filter((r) => r.what === 'initialize').map((r) => r.credential).sort()).toEqual([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]);
  });

  it('returns a result echoing the credential redacted, and keeps it out of the audit log', async () => {
    const answer = (await result(space.run(WHOAMI, { principal: bob }))) as { authorization: string };
    expect(answer.authorization).toBe('Bearer [REDACTED:user:UPSTREAM_TOKEN]');
    const audit = await readFile(space.auditFile!, 'utf8');
    expect(audit).toContain('"principal":{"id":"user:bob"');
    for (const token of Object.values(TOKENS)) expect(audit).not.toContain(token);
  });

  it('fails CREDENTIAL_MISSING for a principal without the secret, and sends nothing upstream', async () => {
    const before = mcp.requests.length;
    const error = await failure(WHOAMI, { principal: carol });
    expect(error.code).toBe('CREDENTIAL_MISSING');
    expect(error.data).toEqual({ name: 'UPSTREAM_TOKEN', principal: 'user:carol', source: project.path('secrets/users.json') });
    expect(error.message).toContain('${user:UPSTREAM_TOKEN}');
    expect(mcp.requests.length).toBe(before);
  });

  it("resolves a run without a principal from the file's `local` entry", async () => {
    expect(await result(space.run(WHOAMI))).toMatchObject({ user: 'local' });
    expect(await result(space.run(WHOAMI, { principal: LOCAL_PRINCIPAL }))).toMatchObject({ user: 'local' });
  });

  it('takes an edit of the secrets file on the next call: a rotated credential reconnects, a removed one fails', async () => {
    await writeSecrets({ 'user:alice': { UPSTREAM_TOKEN: TOKENS.aliceRotated }, 'user:bob': { UPSTREAM_TOKEN: TOKENS.bob } });
    const before = mcp.requests.length;
    expect(await result(space.run(WHOAMI, { principal: alice }))).toMatchObject({ user: 'aliceRotated' });
    const seen = mcp.requests.slice(before);
    expect(seen.filter((r) => r.what === 'initialize').map((r) => r.credential)).toEqual([`Bearer ${TOKENS.aliceRotated}`]);
    expect(seen.every((r) => r.credential === `Bearer ${TOKENS.aliceRotated}`)).toBe(true);
    expect((await failure(WHOAMI)).code).toBe('CREDENTIAL_MISSING');
  });
});

describe('an OpenAPI source whose auth holds ${user:NAME}', () => {
  beforeAll(() =>
    writeSecrets({ 'user:alice': { UPSTREAM_TOKEN: TOKENS.alice, PEOPLE_KEY: KEYS.alice }, 'user:bob': { UPSTREAM_TOKEN: TOKENS.bob, PEOPLE_KEY: KEYS.bob } }),
  );

  it("sends each principal's own key, the echo redacted", async () => {
    const before = people.requests.length;
    const [a, b] = (await Promise.all([result(space.run(GET_ME, { principal: alice })), result(space.run(GET_ME, { principal: bob }))])) as { user: string; apiKey: string }[];
    expect([a!.user, b!.user]).toEqual(['alice', 'bob']);
    expect(a!.apiKey).toBe('[REDACTED:user:PEOPLE_KEY]');
    expect(people.requests.slice(before).map((r) => r.credential).sort()).toEqual([KEYS.alice, KEYS.bob]);
  });

  it('fails CREDENTIAL_MISSING without sending a request for a principal without the key', async () => {
    const before = people.requests.length;
    const error = await failure(GET_ME, { principal: carol });
    expect(error.code).toBe('CREDENTIAL_MISSING');
    expect(error.data).toMatchObject({ name: 'PEOPLE_KEY', principal: 'user:carol' });
    expect(people.requests.length).toBe(before);
  });
});

describe('the secrets file', () => {
  it('is refused while others may read it', async () => {
    await chmod(project.path('secrets/users.json'), 0o644);
    try {
      const error = await failure(WHOAMI, { principal: bob });
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('chmod 600');
    } finally {
      await chmod(project.path('secrets/users.json'), 0o600);
    }
  });

  it.each([
    ['not JSON', `{"user:bob": {"UPSTREAM_TOKEN": "${TOKENS.bob}"`],
    ['an array', '[]'],
    ['a principal that is not an object', '{"user:bob": "x"}'],
    ['a value that is not a string', '{"user:bob": {"UPSTREAM_TOKEN": 7}}'],
    ['too large', JSON.stringify({ 'user:bob': { UPSTREAM_TOKEN: TOKENS.bob, PAD: 'x'.repeat(1024 * 1024) } })],
  ])('is refused when it is %s, without quoting a secret', async (_, text) => {
    await writeFile(project.path('secrets/users.json'), text, { mode: 0o600 });
    const error = await failure(WHOAMI, { principal: bob });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).not.toContain(TOKENS.bob);
  });
});
