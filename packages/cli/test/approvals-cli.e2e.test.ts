// `agent-spaces approvals` (the committed bin over the built packages) while `mcp serve` runs in the same project with a
// call waiting for approval (its client's person never answers): against the project's store (the files the server
// keeps its requests in, answered from this other process) and against the server with `--server`.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../../test/fixtures/project.js';
import { GatedServe, TOKEN, gatedProject, hashCode } from '../../server/test/support/gated-serve.js';

let project: Project;
let serve: GatedServe;
let base: string;

beforeAll(async () => {
  project = await gatedProject();
  serve = new GatedServe(project);
  base = await serve.base();
}, 60_000);

afterAll(async () => {
  await serve?.stop();
});

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/** Runs a gated hash of `data` through the server and resolves, once it waits on record, with its request's id and answer. */
async function waiting(data: string) {
  const { answer } = await serve.startRun(hashCode(data));
  const view = await serve.pending((v) => (v.request.params as { data?: string }).data === data);
  // The run's record (its code) is kept as it pauses.
  await vi.waitFor(async () => expect((await serve.api('GET', `/approvals/${view.id}`)).body.script).toBe(hashCode(data)));
  return { id: view.id, answer };
}

describe('agent-spaces approvals against the project store', () => {
  it('lists and shows the waiting call, and approve lets the run finish', async () => {
    const { id, answer } = await waiting('cli approves');

    const listed = await project.cli(['approvals', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const views = (JSON.parse(listed.stdout) as { approvals: Array<{ id: string; request: { params: unknown } }> }).approvals;
    expect(views.find((v) => v.id === id)?.request.params).toEqual({ algorithm: 'sha256', data: 'cli approves' });
    const table = await project.cli(['approvals', 'list']);
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+default\\s+std\\.crypto\\.hash\\s+token:[0-9a-f]{16}\\s+in \\dm \\d\\ds\\s+Allow std\\.crypto\\.hash`, 'm'));

    const shown = await project.cli(['approvals', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`approval ${id}  pending`);
    expect(shown.stdout).toMatch(/call {5}std\.crypto\.hash/);
    expect(shown.stdout).toMatch(/asked by token:[0-9a-f]{16}/);
    expect(shown.stdout).toContain('"data": "cli approves"');
    expect(shown.stdout).toContain(`code:\n  ${hashCode('cli approves').replace(/\n/g, '\n  ')}`);

    const approved = await project.cli(['approvals', 'approve', id, '--by', 'ann', '--reason', 'fine']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`✓ approved ${id} (std.crypto.hash) as ann`);
    expect((await answer).body.result).toBe(sha256('cli approves'));

    const line = await serve.auditLine('cli approves');
    expect(line.decision).toMatchObject({ approved: true, answeredBy: 'ann', answeredFrom: `cli on ${hostname()}`, reason: 'fine' });
    const audit = await project.cli(['audit']);
    expect(audit.stdout).toContain(`→ approved by ann from cli on ${hostname()}  ok`);
  });

  it('fails with APPROVAL_ANSWERED or APPROVAL_NOT_FOUND (exit 1), naming the id', async () => {
    const { id, answer } = await waiting('cli denies');
    const denied = await project.cli(['approvals', 'deny', id, '--json']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ id, status: 'denied', answer: { approved: false } });
    expect((await answer).body.result.code).toBe('APPROVAL_DENIED');

    const again = await project.cli(['approvals', 'approve', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('APPROVAL_ANSWERED');
    expect(again.stderr).toContain(id);
    const missing = await project.cli(['approvals', 'show', 'no-such-request', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, error: { code: 'APPROVAL_NOT_FOUND', data: { id: 'no-such-request' } } });
    const shown = await project.cli(['approvals', 'show', id]);
    expect(shown.stdout).toContain(`approval ${id}  denied`);
    expect(shown.stdout).toMatch(/answer {3}denied by \S+ from cli on /);
  });
});

describe('agent-spaces approvals --server', () => {
  it('lists, shows and answers through the /approvals API with the token', async () => {
    const { id, answer } = await waiting('over http');
    const listed = await project.cli(['approvals', 'list', '--server', base, '--token', TOKEN, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { approvals: Array<{ id: string }> }).approvals.map((v) => v.id)).toContain(id);
    const shown = await project.cli(['approvals', 'show', id, '--server', `${base}/mcp`], { AGENT_SPACES_TOKEN: TOKEN });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('"data": "over http"');

    const approved = await project.cli(['approvals', 'approve', id, '--server', base, '--token', TOKEN, '--by', 'bo']);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await answer).body.result).toBe(sha256('over http'));
    const line = await serve.auditLine('over http');
    expect(line.decision).toMatchObject({ answeredBy: 'bo', answeredFrom: `cli on ${hostname()} via http 127.0.0.1` });

    const again = await project.cli(['approvals', 'deny', id, '--server', base, '--token', TOKEN, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error).toMatchObject({ code: 'APPROVAL_ANSWERED', data: { id, status: 409 } });
  });

  it('fails UNAUTHORIZED without the token and MCP_UNAVAILABLE when nothing listens', async () => {
    const refused = await project.cli(['approvals', 'list', '--server', base, '--json'], { AGENT_SPACES_TOKEN: '', AGENT_SPACES_MCP_TOKEN: '' });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'UNAUTHORIZED', data: { status: 401 } });
    const nobody = await project.cli(['approvals', 'list', '--server', 'http://127.0.0.1:1', '--token', TOKEN, '--json']);
    expect(nobody.code).toBe(1);
    expect(JSON.parse(nobody.stdout).error).toMatchObject({ code: 'MCP_UNAVAILABLE', data: { reason: 'unreachable' } });
    const bad = await project.cli(['approvals', 'list', '--server', 'ftp://example.com']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('CONFIG_INVALID');
  });
});
