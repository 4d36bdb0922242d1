// The `/approvals` API answering as the principal of the request's credentials: the handler of the server's front
// door (serveApprovals) on a real HTTP server, whose stand-in front door puts each bearer identity's principal where
// the real one does (`req.auth.extra.agentSpacesPrincipal`); the requests are real, on a file approval store.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@agent-spaces/capabilities';
import { ApprovalService, FileApprovalStore, type ApprovalRequest } from '@agent-spaces/bridge';
import { makeProject } from '../../../test/fixtures/project.js';
import { serveApprovals } from '../src/approvals/http.js';
import { PRINCIPAL_KEY, principalOf } from '../src/connection.js';

const USERS: Record<string, Principal> = {
  'token-alice': { id: 'user:alice', subject: 'alice', scopes: [], groups: ['interns'] },
  'token-bob': { id: 'user:bob', subject: 'bob', scopes: [], groups: ['admins'] },
  'token-carol': { id: 'user:carol', subject: 'carol', scopes: [], groups: [] },
};

let server: Server;
let base: string;
let store: FileApprovalStore;

beforeAll(async () => {
  store = new FileApprovalStore((await makeProject()).dir);
  const service = new ApprovalService({ approvals: store });
  server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const principal = token ? USERS[token] : undefined;
    if (token) (req as { auth?: unknown }).auth = { token, clientId: 'test', scopes: [], ...(principal ? { extra: { [PRINCIPAL_KEY]: principal } } : {}) };
    void serveApprovals(service, req, res, new URL(req.url!, 'http://x').pathname);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

/** The API's JSON answers, as far as these tests read them. */
interface Reply {
  approvals: { id: string }[];
  error: unknown;
  status: string;
}

async function api(method: string, path: string, token?: string) {
  const reply = await fetch(`${base}${path}`, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"by":"someone"}' } : {}) });
  return { status: reply.status, body: (await reply.json()) as Reply };
}

function request(id: string, fields: Partial<ApprovalRequest>): ApprovalRequest {
  return { id, capability: 'crm', function: 'deleteRecord', params: {}, message: 'Delete?', expiresAt: new Date(Date.now() + 60_000).toISOString(), ...fields };
}

describe('/approvals with two bearer identities', () => {
  it('alice may not answer her own request (403 APPROVER_NOT_ALLOWED), bob may; each lists what it may see', async () => {
    await store.add(request('req-others', { requestedBy: { id: 'user:alice', subject: 'alice' }, approvers: { others: true } }));
    const refused = await api('POST', '/approvals/req-others/approve', 'token-alice');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'APPROVER_NOT_ALLOWED', data: { id: 'req-others', requirement: { others: true } } });
    expect((await api('GET', '/approvals', 'token-alice')).body.approvals.map((v) => v.id)).toContain('req-others');
    const approved = await api('POST', '/approvals/req-others/approve', 'token-bob');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', request: { requestedBy: { id: 'user:alice' } }, answer: { by: 'user:bob', from: 'http 127.0.0.1' } });
  });

  it('a group requirement hides the request from outsiders and refuses their answers; a member answers', async () => {
    await store.add(request('req-admins', { requestedBy: { id: 'user:alice' }, approvers: { groups: ['admins'] } }));
    for (const token of ['token-carol', 'shared-token', undefined]) {
      expect((await api('GET', '/approvals', token)).body.approvals.map((v) => v.id)).not.toContain('req-admins');
      expect((await api('GET', '/approvals/req-admins', token)).status).toBe(404);
      expect((await api('POST', '/approvals/req-admins/deny', token)).status).toBe(403);
    }
    expect((await api('GET', '/approvals/req-admins', 'token-alice')).status).toBe(200);
    expect((await api('POST', '/approvals/req-admins/deny', 'token-alice')).status).toBe(403);
    const denied = await api('POST', '/approvals/req-admins/deny', 'token-bob');
    expect(denied.body).toMatchObject({ status: 'denied', answer: { approved: false, by: 'user:bob' } });
  });

  it("a request without a requirement is its requester's own: no one else sees or answers it; the shared token that made it does", async () => {
    const requester = principalOf({ token: 'shared-token', clientId: 'bearer', scopes: [] });
    await store.add(request('req-open', { requestedBy: { id: requester.id } }));
    for (const token of ['token-bob', 'token-carol', undefined]) {
      expect((await api('GET', '/approvals', token)).body.approvals.map((v) => v.id)).not.toContain('req-open');
      expect((await api('GET', '/approvals/req-open', token)).status).toBe(404);
      expect((await api('POST', '/approvals/req-open/approve', token)).status).toBe(403);
    }
    const answered = await api('POST', '/approvals/req-open/approve', 'shared-token');
    expect(answered.body).toMatchObject({ status: 'approved', answer: { by: 'someone' } });
  });
});
