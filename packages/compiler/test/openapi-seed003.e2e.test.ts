// Seed 003's own spec shape against a real server: an action with a JSON request body of fields (no `required: true`
// on the body, as the seed writes it) is called with flat params like a query action (`sendEmail({ to, subject, body })`
// beside `readEmails({ limit })`), the executor re-assembles the body; a body that collides with a parameter or is no
// plain object stays one `body` field. The build report (and `capabilities build`, lines and `--json`) names the
// discovery URL that answered.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilitySchemaFile } from '@agent-spaces/capabilities';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/** A request the action server saw. */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

const ok = { 200: { description: 'Success', content: { 'application/json': { schema: { properties: { result: { type: 'string' } } } } } } };
const fields = (properties: Record<string, unknown>, required: string[] = []) => ({ properties, ...(required.length > 0 ? { required } : {}) });
/** A body as seed 003 writes it: no `required` on the body itself, `application/json` content. */
const body = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const TEXT = { type: 'string', description: 'Search text' };

/** Seed 003's spec shape (paths only, no servers), plus one operation per way a body stays nested. */
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Email actions', version: '1.0.0' },
  paths: {
    '/send-email': {
      post: {
        operationId: 'send_email',
        summary: 'Send an email',
        requestBody: body(fields({ to: { type: 'string', description: 'Recipient address' }, subject: { type: 'string' }, body: { type: 'string' } }, ['to', 'subject'])),
        responses: ok,
      },
    },
    '/read-emails': {
      get: { operationId: 'read_emails', parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' }, description: 'How many' }], responses: ok },
    },
    '/notes': { post: { operationId: 'add_note', requestBody: { required: true, ...body({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }) }, responses: ok } },
    '/search': {
      post: { operationId: 'search', parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }], requestBody: body(fields({ limit: { type: 'integer' }, text: TEXT })), responses: ok },
    },
    '/items/{id}': {
      put: { operationId: 'put_item', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], requestBody: body(fields({ id: { type: 'string' }, name: { type: 'string' } })), responses: ok },
    },
    '/traced': {
      post: { operationId: 'traced', parameters: [{ name: 'trace', in: 'header', schema: { type: 'string' } }], requestBody: body(fields({ trace: { type: 'string' } })), responses: ok },
    },
    '/bulk': { post: { operationId: 'bulk', requestBody: body({ type: 'array', items: { type: 'string' } }), responses: ok } },
    '/either': { post: { operationId: 'either', requestBody: body({ oneOf: [fields({ a: { type: 'string' } }, ['a']), fields({ b: { type: 'string' } }, ['b'])] }), responses: ok } },
    '/labels': { post: { operationId: 'labels', requestBody: body({ type: 'object', additionalProperties: { type: 'string' } }), responses: ok } },
    '/raw': { post: { operationId: 'raw', requestBody: body({ type: 'string' }), responses: ok } },
  },
};

let server: Server;
let url: string;
const seen: Seen[] = [];
const hits: string[] = [];
let project: Project;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/api/openapi.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SPEC));
        return;
      }
      if (request.url === '/openapi.json' || request.url === '/') {
        response.writeHead(404).end('not here');
        return;
      }
      const text = Buffer.concat(chunks).toString();
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: text === '' ? undefined : JSON.parse(text) });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: `${request.method} ${request.url}` }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: ['capabilities/*'] },
    'capabilities/action_servers.json': { servers: { mail: { name: 'mail', url, description: 'Email actions', auto_discover: true } } },
  });
});
afterAll(() => new Promise((done) => server.close(done)));

/** Runs agent `code` in a space over the built project, approving every call. */
async function run(code: string) {
  const space = await project.space({ isolation: 'in-process', onApproval: () => true });
  return space.run(code);
}

describe("seed 003's spec shape", () => {
  it('reports the discovery URL that answered in the build entry', async () => {
    hits.length = 0;
    const report = await project.build();
    expect(report.capabilities).toEqual([
      expect.objectContaining({ id: 'mail', file: 'capabilities/action_servers.json', status: 'built', spec: `${url}/api/openapi.json` }),
    ]);
    expect(hits).toEqual(['/openapi.json', '/', '/api/openapi.json']);
  });

  it('flattens the body fields into the params, as the query params are', async () => {
    const schema = JSON.parse(await project.read('.agent-spaces/capabilities/mail/schema.json')) as CapabilitySchemaFile;
    expect(schema.functions.sendEmail!.parameters).toMatchObject({ properties: { to: { type: 'string' }, subject: {}, body: {} }, required: ['to', 'subject'] });
    expect(schema.functions.readEmails!.parameters).toMatchObject({ properties: { limit: { type: 'integer' } } });
    expect(Object.keys(schema.functions.addNote!.parameters.properties!)).toEqual(['title']);
    const declarations = await project.read('.agent-spaces/capabilities/mail/index.d.ts');
    expect(declarations).toMatch(/interface SendEmailParams \{[^}]*to: string;[^}]*subject: string;[^}]*body\?: string;/s);
  });

  it('sends sendEmail({ to, subject, body }) as one JSON body and readEmails({ limit }) as a query', async () => {
    seen.length = 0;
    const result = await run(`import { mail } from '@capabilities/mail';
const sent = await mail.sendEmail({ to: 'bob@example.com', subject: 'Trains', body: 'The 9:00 is late' });
const inbox = await mail.readEmails({ limit: 2 });
const note = await mail.addNote({ title: 'call bob' });
export default [sent, inbox, note];`);
    expect(result).toMatchObject({ ok: true, result: [{ result: 'POST /send-email' }, { result: 'GET /read-emails?limit=2' }, { result: 'POST /notes' }] });
    expect(seen.map(({ method, url: path, body: sent }) => [method, path, sent])).toEqual([
      ['POST', '/send-email', { to: 'bob@example.com', subject: 'Trains', body: 'The 9:00 is late' }],
      ['GET', '/read-emails?limit=2', undefined],
      ['POST', '/notes', { title: 'call bob' }],
    ]);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it("refuses the old nested shape and a missing required field on the agent's line", async () => {
    seen.length = 0;
    for (const call of [`mail.sendEmail({ body: { to: 'bob@example.com', subject: 'Trains' } })`, `mail.sendEmail({ to: 'bob@example.com' })`, `mail.sendEmail({ to: 1, subject: 'x' })`]) {
      const result = await run(`import { mail } from '@capabilities/mail';\n\nexport default await ${call};`);
      expect(result).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
      expect(JSON.stringify(result)).toMatch(/:3:/);
    }
    expect(seen).toEqual([]);
  });

  const NESTED: Record<string, [fn: string, call: string, path: string, sent: unknown]> = {
    'a body field named like a query param': ['search', `{ limit: 5, body: { limit: 1, text: 'x' } }`, '/search?limit=5', { limit: 1, text: 'x' }],
    'a body field named like a path param': ['putItem', `{ id: 'a/b', body: { id: 'c', name: 'n' } }`, '/items/a%2Fb', { id: 'c', name: 'n' }],
    'a body field named like a header param': ['traced', `{ trace: 't1', body: { trace: 't2' } }`, '/traced', { trace: 't2' }],
    'an array body': ['bulk', `{ body: ['a', 'b'] }`, '/bulk', ['a', 'b']],
    'a oneOf body': ['either', `{ body: { b: 'x' } }`, '/either', { b: 'x' }],
    'a map body (schema-valued additionalProperties)': ['labels', `{ body: { k: 'v' } }`, '/labels', { k: 'v' }],
    'a string body': ['raw', `{ body: 'hello' }`, '/raw', 'hello'],
  };
  for (const [label, [fn, call, path, sent]] of Object.entries(NESTED)) {
    it(`keeps ${label} as one body field: ${fn}(${call})`, async () => {
      seen.length = 0;
      const result = await run(`import { mail } from '@capabilities/mail';\nexport default await mail.${fn}(${call});`);
      expect(result).toMatchObject({ ok: true });
      expect(seen.map((s) => [s.url, s.body])).toEqual([[path, sent]]);
      if (fn === 'traced') expect(seen[0]!.headers.trace).toBe('t1');
    });
  }

  it('names the discovery URL on the `capabilities build` line and in --json', async () => {
    const lines = await project.cli(['capabilities', 'build', '--refresh']);
    expect(lines.code).toBe(0);
    expect(lines.stdout + lines.stderr).toContain(`capabilities/action_servers.json (`);
    expect(lines.stdout + lines.stderr).toMatch(new RegExp(`mail +built +capabilities/action_servers\\.json \\(\\d+ ms, spec ${url.replace(/[.:/]/g, '\\$&')}/api/openapi\\.json\\)`));
    const json = await project.cli(['capabilities', 'build', '--refresh', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ capabilities: [{ id: 'mail', spec: `${url}/api/openapi.json` }] });
  });
});
