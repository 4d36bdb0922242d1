// The `/approvals` API of `mcp serve` (a real child process over HTTP, with a bearer token): a run whose gated call
// waits (its client's person never answers) is listed, shown and answered through the API, and the run goes on.
import { createHash } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../../test/fixtures/project.js';
import { GatedServe, TOKEN, gatedProject, hashCode } from './support/gated-serve.js';

let project: Project;
let serve: GatedServe;

beforeAll(async () => {
  project = await gatedProject();
  serve = new GatedServe(project);
  await serve.url();
}, 60_000);

afterAll(async () => {
  await serve?.stop();
});

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

describe('answering a waiting call through /approvals', () => {
  it('lists it, shows its params, and approving it finishes the run; a second answer is 409', async () => {
    const { answer: result } = await serve.startRun(hashCode('approve me'));
    const view = await serve.pending((v) => (v.request.params as { data?: string }).data === 'approve me');
    expect(view).toMatchObject({
      status: 'pending',
      request: { capability: 'std', function: 'crypto.hash', params: { algorithm: 'sha256', data: 'approve me' }, space: 'default', runId: expect.any(String) },
    });
    expect(Date.parse(view.request.expiresAt!)).toBeGreaterThan(Date.now());

    const shown = await vi.waitFor(async () => {
      const reply = await serve.api('GET', `/approvals/${view.id}`);
      expect(reply.body.script).toBeDefined();
      return reply;
    });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: view.id, status: 'pending', request: { params: { data: 'approve me' } }, script: hashCode('approve me') });

    const approved = await serve.api('POST', `/approvals/${view.id}/approve`, { by: 'ann', reason: 'expected hash' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: view.id, status: 'approved', answer: { approved: true, by: 'ann', from: 'http 127.0.0.1', reason: 'expected hash' } });
    const answer = await result;
    expect(answer.isError).toBe(false);
    expect(answer.body.result).toBe(sha256('approve me'));

    const again = await serve.api('POST', `/approvals/${view.id}/deny`, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'APPROVAL_ANSWERED', data: { id: view.id } });
    expect(again.body.error.message).toContain(view.id);
    expect((await serve.api('GET', `/approvals/${view.id}`)).body.status).toBe('approved');
    expect((await serve.api('GET', '/approvals')).body.approvals.map((v: { id: string }) => v.id)).not.toContain(view.id);

    const line = await serve.auditLine('approve me');
    expect(line.decision).toMatchObject({ kind: 'ask', approved: true, answeredBy: 'ann', answeredFrom: 'http 127.0.0.1' });
    expect(line.outcome).toEqual({ ok: true });
  });

  it('denying it fails the call with APPROVAL_DENIED and the reason; the console is audited as the console', async () => {
    const { answer: result } = await serve.startRun(hashCode('deny me'));
    const view = await serve.pending((v) => (v.request.params as { data?: string }).data === 'deny me');
    const denied = await serve.api('POST', `/approvals/${view.id}/deny`, { reason: 'not today' }, { authorization: `Bearer ${TOKEN}`, 'x-agent-spaces-client': 'console' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied', answer: { approved: false, by: 'http client', from: 'console 127.0.0.1', reason: 'not today' } });
    const answer = await result;
    expect(answer.body.result.code).toBe('APPROVAL_DENIED');
    expect(answer.body.result.message).toContain('not today');
    const line = await serve.auditLine('deny me');
    expect(line.decision).toMatchObject({ kind: 'ask', approved: false, answeredBy: 'http client', answeredFrom: 'console 127.0.0.1' });
    expect(line.outcome).toMatchObject({ ok: false, code: 'APPROVAL_DENIED' });
  });

  it('adds the address after the place a client names, and checks the body', async () => {
    const { answer: result } = await serve.startRun(hashCode('from the cli'));
    const view = await serve.pending((v) => (v.request.params as { data?: string }).data === 'from the cli');
    const tooLong = await serve.api('POST', `/approvals/${view.id}/approve`, { by: 'x'.repeat(201) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('INVALID_ARGUMENTS');
    for (const body of ['not json', '[1]', { reason: 7 }]) expect((await serve.api('POST', `/approvals/${view.id}/approve`, body)).status).toBe(400);
    const huge = await serve.api('POST', `/approvals/${view.id}/approve`, { reason: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await serve.api('GET', `/approvals/${view.id}`)).body.status).toBe('pending');

    const approved = await serve.api('POST', `/approvals/${view.id}/approve`, { by: 'bo', from: 'cli on host-1' });
    expect(approved.body.answer).toMatchObject({ by: 'bo', from: 'cli on host-1 via http 127.0.0.1' });
    expect((await result).body.result).toBe(sha256('from the cli'));
  });
});

describe('what /approvals refuses', () => {
  it('needs the bearer token (401), an allowed Origin (403), and the right method (405)', async () => {
    const { answer: result } = await serve.startRun(hashCode('guarded'));
    const view = await serve.pending((v) => (v.request.params as { data?: string }).data === 'guarded');
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }] as Array<Record<string, string>>) {
      for (const [method, path] of [['GET', '/approvals'], ['GET', `/approvals/${view.id}`], ['POST', `/approvals/${view.id}/approve`]] as const) {
        const reply = await serve.api(method, path, method === 'POST' ? {} : undefined, headers);
        expect(reply.status, `${method} ${path}`).toBe(401);
        expect(reply.body.error.code).toBe('UNAUTHORIZED');
        expect(reply.headers['www-authenticate']).toContain('Bearer');
      }
    }
    const foreign = await serve.api('POST', `/approvals/${view.id}/approve`, {}, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const wrongMethod = await serve.api('GET', `/approvals/${view.id}/approve`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect((await serve.api('DELETE', '/approvals')).status).toBe(405);
    expect((await serve.api('GET', `/approvals/${view.id}`)).body.status).toBe('pending');

    await serve.api('POST', `/approvals/${view.id}/approve`, {});
    expect((await result).body.result).toBe(sha256('guarded'));
  });

  it('answers 404 for ids that could name a file outside its folder, and touches none', async () => {
    const state = project.path('.agent-spaces/state');
    await writeFile(`${state}/secret.json`, JSON.stringify({ request: { id: 'secret', capability: 'x', function: 'y', params: {}, message: 'm' } }));
    const before = await readdir(state, { recursive: true });
    const hostile = ['..%2Fsecret', '%2E%2E%2Fsecret', '..%5Csecret', 'a%2Fb', '%ZZ', 'x'.repeat(5000), '%00', 'secret.json', '.answer', 'nope'];
    for (const id of hostile) {
      for (const [method, path] of [['GET', `/approvals/${id}`], ['POST', `/approvals/${id}/approve`], ['POST', `/approvals/${id}/deny`]] as const) {
        const reply = await serve.api(method, path, method === 'POST' ? { by: 'mallory' } : undefined);
        expect(reply.status, `${method} ${path.slice(0, 60)}`).toBe(404);
        expect(reply.body.error.code).toBe('APPROVAL_NOT_FOUND');
      }
    }
    expect((await serve.api('GET', '/approvals/a/b/c')).status).toBe(404);
    expect(await readdir(state, { recursive: true })).toEqual(before);
  });
});

describe('the console page', () => {
  it('is served without a token, with a strict Content-Security-Policy', async () => {
    const page = await serve.api('GET', '/console', undefined, {});
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe');
    expect(page.body).toContain('<title>agent-spaces approvals</title>');
    expect(page.body).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    expect((await serve.api('GET', '/console', undefined, { host: 'evil.example' })).status).toBe(403);
    expect((await serve.api('POST', '/console', '{}', {})).status).toBe(405);
  });
});
