import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createCodeModeServer } from '../src/server.js';
import { createServerLog } from '../src/log.js';
import type { SpaceDefinition } from '../src/config.js';
import { callTool, connectInMemory, newClient } from './support/client.js';
import { HttpServe } from './support/serve.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

// spaces[].privacy (docs/privacy.md): personal data reaches the model as tokens, code and capabilities see the values,
// and a token the model sends back is restored on the host — only in the scope that gave it out.

const EMAIL = 'dana.whitfield@acme.example';
const PHONE = '+1 415 555 2671';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const CARD = '4111 1111 1111 1111';
const SURNAME = "O'Brien";
/** Values that must never reach the model or a log line. */
const PERSONAL = [EMAIL, PHONE, IBAN, CARD];

const fn = (name: string, parameters: object, returns: object = { type: 'object' }) => ({ name, description: name, parameters, returns });
const STRING = { type: 'string' };
const CRM = {
  name: 'crm',
  description: 'Customers',
  functions: [
    fn(
      'findCustomer',
      { type: 'object', properties: { name: STRING }, required: ['name'] },
      { type: 'object', properties: { id: STRING, name: STRING, email: STRING, phone: STRING, iban: STRING, card: STRING, note: STRING }, required: ['email'] },
    ),
  ],
  executor: { kind: 'module', module: './crm.handlers.mjs' },
};
const MAILER = {
  name: 'mailer',
  description: 'Sends mail',
  functions: [fn('send', { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } }, required: ['to'] })],
  executor: { kind: 'module', module: './mailer.handlers.mjs' },
};
const CRM_HANDLERS = `export async function findCustomer({ name }) {
  return { id: 'cus_001', name, email: '${EMAIL}', phone: '${PHONE}', iban: '${IBAN}', card: '${CARD}', note: "Met ${SURNAME.replace("'", "\\'")}" };
}`;
// Appends each message to the file $PRIVACY_SENT_FILE names: what the capability really received.
const MAILER_HANDLERS = `import { appendFileSync } from 'node:fs';
export async function send({ to, subject }) {
  if (process.env.PRIVACY_SENT_FILE) appendFileSync(process.env.PRIVACY_SENT_FILE, JSON.stringify({ to, subject }) + '\\n');
  return { sent: true, to };
}`;
const IMPORTS = "import { crm } from '@capabilities/crm';\nimport { mailer } from '@capabilities/mailer';\n";

let project: Project;

/** Where the mailer capability of the `mcp serve` child writes what it received. */
const sentFile = () => join(project.dir, 'sent.jsonl');

/** What the mailer capability received, in order. */
async function sent(): Promise<Array<{ to: string; subject?: string }>> {
  const text = await readFile(sentFile(), 'utf8').catch(() => '');
  return text.trim() === '' ? [] : text.trim().split('\n').map((line) => JSON.parse(line) as { to: string });
}

beforeAll(async () => {
  project = await makeProject({
    'capabilities/crm.json': CRM,
    'capabilities/mailer.json': MAILER,
    'capabilities/crm.handlers.mjs': CRM_HANDLERS,
    'capabilities/mailer.handlers.mjs': MAILER_HANDLERS,
  });
  const report = await project.build({ sources: ['capabilities/*.json'] });
  expect(report.totals.failed).toBe(0);
}, 60_000);

afterAll(async () => {
  await project?.remove();
});

describe('a PII round trip through mcp serve (user view)', () => {
  it('tokenizes what the model reads, passes real values between tools and restores tokens the model sends back', { timeout: 120_000 }, async () => {
    const config = { capabilities: ['capabilities/*.json'], spaces: [{ id: 'crm', name: 'CRM', privacy: true }] };
    await writeFile(join(project.dir, 'agent-spaces.config.json'), JSON.stringify(config));
    const server = new HttpServe(project.dir, { 'log-format': 'json' }, { PRIVACY_SENT_FILE: sentFile() });
    try {
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(await server.url())));
      const read = await callTool(client, 'execute', { code: `${IMPORTS}export default await crm.findCustomer({ name: 'Dana' });` });
      expect(read.body.result).toMatchObject({ email: '[EMAIL_1]', phone: '[PHONE_1]', iban: '[IBAN_1]', card: '[CARD_1]' });
      for (const value of PERSONAL) expect(read.text).not.toContain(value);

      // One tool's result feeds another in code: the mailer gets the real address, the model reads the same token.
      const code = `${IMPORTS}const c = await crm.findCustomer({ name: 'Dana' });\nexport default await mailer.send({ to: c.email, subject: 'Hi' });`;
      const relayed = await callTool(client, 'execute', { code });
      expect(relayed.body.result, relayed.text).toEqual({ sent: true, to: '[EMAIL_1]' });
      expect(relayed.body.events[1]).toMatchObject({ function: 'send', params: { to: '[EMAIL_1]', subject: 'Hi' } });
      expect(relayed.text).not.toContain(EMAIL);

      // The model writes the token back in a later execute: restored on the host, in its string literals.
      const back = await callTool(client, 'execute', { code: `${IMPORTS}export default await mailer.send({ to: '[EMAIL_1]', subject: 'Again' });` });
      expect(back.body.result).toEqual({ sent: true, to: '[EMAIL_1]' });
      expect(await sent()).toEqual([{ to: EMAIL, subject: 'Hi' }, { to: EMAIL, subject: 'Again' }]);

      // Another client (another scope) writing the same token gets it as it is: it was never given out to it.
      const other = newClient();
      await other.connect(new StreamableHTTPClientTransport(new URL(await server.url())));
      await callTool(other, 'execute', { code: `${IMPORTS}export default await mailer.send({ to: '[EMAIL_1]', subject: 'Forged' });` });
      expect((await sent()).at(-1)).toEqual({ to: '[EMAIL_1]', subject: 'Forged' });
      await other.close();
      await client.close();
    } finally {
      await server.stop();
    }
    const audit = server.stderr.split('\n').filter((line) => line.includes('"privacy.tokenized"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit[0]).toMatchObject({ tool: 'execute', space: 'crm', tokens: 4, kinds: 'EMAIL=1,PHONE=1,IBAN=1,CARD=1' });
    expect(audit[2]).toMatchObject({ tool: 'execute', tokens: 2, kinds: 'EMAIL=2', restored: 1 });
    for (const value of PERSONAL) expect(server.stderr).not.toContain(value);
  });
});

describe('privacy over MCP, hostile variants', () => {
  const spaces: SpaceDefinition[] = [
    {
      id: 'private',
      name: 'Private',
      privacy: { patterns: [{ name: 'SURNAME', pattern: "O'[A-Z][a-z]+" }, { name: 'DOMAIN', pattern: 'acme\\.example' }] },
      directTools: ['crm.findCustomer', 'mailer.send'],
    },
    { id: 'open', name: 'Open' },
  ];
  let client: Client;
  let second: Client;
  const lines: string[] = [];

  beforeAll(async () => {
    const log = createServerLog({ format: 'json', write: (line) => lines.push(line) });
    // Results up to 8 MiB (default 1 MiB), so one can pass the scan's bound.
    const server = createCodeModeServer({ spaces, space: { rootDir: project.dir, limits: { maxPayloadBytes: 8 << 20 } }, log });
    client = await connectInMemory(server);
    second = await connectInMemory(createCodeModeServer({ spaces, space: { rootDir: project.dir } }));
  });

  afterAll(async () => {
    await client?.close();
    await second?.close();
  });

  const run = async (code: string, spaceId = 'private', on = client) => callTool(on, 'execute', { code, spaceId });

  it('tokenizes object keys, nested arrays, Maps and Sets, the same value always as the same token', async () => {
    const code = `const deep = [[[{ a: { b: 'write to ${EMAIL}' } }]]];
return { ['${EMAIL}']: deep, map: new Map([['${PHONE}', '${EMAIL}']]), set: new Set(['${IBAN}']), n: 4111111111111111 };`;
    const answer = await run(code);
    expect(answer.body.result['[EMAIL_1]'][0][0][0].a.b).toBe('write to [EMAIL_1]');
    expect(answer.body.result.map).toEqual({ $map: [['[PHONE_1]', '[EMAIL_1]']] });
    expect(answer.body.result.set).toEqual({ $set: ['[IBAN_1]'] });
    for (const value of PERSONAL.slice(0, 3)) expect(answer.text).not.toContain(value);
  });

  it('tokenizes console output, capability params and error messages too', async () => {
    const code = `${IMPORTS}console.log('mail ${EMAIL}');\nawait mailer.send({ to: '${EMAIL}' });\nthrow new Error('failed for ${PHONE}');`;
    const answer = await run(code);
    expect(answer.isError).toBe(true);
    expect(answer.body.logs).toEqual(['mail [EMAIL_1]']);
    expect(answer.body.events[0].params.to).toBe('[EMAIL_1]');
    expect(answer.body.message).toContain('failed for [PHONE_1]');
    expect(answer.text).not.toContain(EMAIL);
  });

  it('resolves overlapping matches to one token: the match starting first, then the longest', async () => {
    const answer = await run(`return 'a ${EMAIL} b acme.example c ${SURNAME.replace("'", "\\'")} d ${CARD}-2024';`);
    expect(answer.body.result).toBe('a [EMAIL_1] b [DOMAIN_1] c [SURNAME_1] d [CARD_1]-2024');
  });

  it("restores a custom pattern's value with quotes into a string literal as the value itself", async () => {
    await run(`return "${SURNAME}";`);
    const answer = await run(`const s = '[SURNAME_1]'; const t = \`[SURNAME_1]\`; return [s === "${SURNAME}", t.length, s];`);
    expect(answer.body.result).toEqual([true, SURNAME.length, '[SURNAME_1]']);
  });

  it('leaves unknown, forged and other-scope tokens as they are', async () => {
    await run(`return '${EMAIL}';`);
    const forged = ['[EMAIL_999]', '[EMAIL_0]', '[NOPE_1]', '[EMAIL_1 ]', '[[EMAIL_1]]'];
    const answer = await run(`return ${JSON.stringify(forged)}.map((t) => t.length);`);
    expect(answer.body.result).toEqual([11, 9, 8, 10, forged[4]!.length - 9 + EMAIL.length]);
    // Another connection, and another space of this connection, never get this scope's values.
    expect((await run(`return '[EMAIL_1]'.length;`, 'private', second)).body.result).toBe(9);
    expect((await run(`return '[EMAIL_1]'.length;`, 'open')).body.result).toBe(9);
  });

  it('tokenizes direct tool results and restores tokens in their arguments', async () => {
    const found = await callTool(client, 'crm_findCustomer', { name: 'Dana' });
    const token = found.body.email as string;
    expect(token).toMatch(/^\[EMAIL_\d+\]$/);
    expect(found.text).not.toContain(EMAIL);
    process.env.PRIVACY_SENT_FILE = sentFile();
    try {
      expect((await callTool(client, 'mailer_send', { to: token, subject: 'Direct' })).body).toEqual({ sent: true, to: token });
    } finally {
      delete process.env.PRIVACY_SENT_FILE;
    }
    expect((await sent()).at(-1)).toEqual({ to: EMAIL, subject: 'Direct' });
  });

  it('keeps a space without privacy as it was', async () => {
    expect((await run(`return '${EMAIL}';`, 'open')).body.result).toBe(EMAIL);
  });

  it('scans large results within a bound: a huge string is withheld, binary and long texts answer in time', async () => {
    const huge = await run(`return { big: 'x'.repeat(2_000_000) + ' ${EMAIL}', small: '${EMAIL}' };`);
    expect(huge.body.result.big).toBe(`[WITHHELD: ${2_000_001 + EMAIL.length} characters not scanned for personal data]`);
    expect(huge.body.result.small).toBe('[EMAIL_1]');
    const long = await run(`return '1 '.repeat(200_000) + '${PHONE} ' + '@a'.repeat(100_000);`);
    expect(long.text).not.toContain(PHONE);
    const bytes = await run(`return new Uint8Array(300_000).fill(64);`);
    expect(bytes.body.result).toHaveLength(300_000);
  });

  it('tokenizes send_code results and the session history, which holds the restored code', async () => {
    const sessionId = (await callTool(client, 'create_session', { spaceId: 'private' })).body.sessionId as string;
    await callTool(client, 'send_code', { sessionId, code: `const who = '${EMAIL}'; return who;` });
    const again = await callTool(client, 'send_code', { sessionId, code: `return who === '[EMAIL_1]';` });
    expect(again.body.result).toBe(true);
    const history = await callTool(client, 'get_session_history', { sessionId });
    expect(history.text).not.toContain(EMAIL);
    expect(history.body.history.map((h: { code: string }) => h.code)).toEqual([`const who = '[EMAIL_1]'; return who;`, `return who === '[EMAIL_1]';`]);
  });

  it('logs counts per kind and never a value', () => {
    const audit = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.event === 'privacy.tokenized');
    expect(audit.length).toBeGreaterThan(3);
    expect(audit.some((e) => typeof e.kinds === 'string' && /SURNAME=1/.test(e.kinds))).toBe(true);
    expect(audit.some((e) => e.withheld === 1)).toBe(true);
    for (const value of [...PERSONAL, SURNAME]) expect(lines.join('\n')).not.toContain(value);
  });
});
