// Durable runs through createSpace(): a first process runs agent code until a call waits for approval and is killed
// with SIGKILL; the approval is answered from storage; a new space resumes the run by replaying it against its ledger.
// Real child processes, the real sandbox and bridge, the file stores under <project>/.agent-spaces/state/.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApprovalService, FileApprovalStore, FileRunStore, type RunResult, type Space, type SpaceOptions } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const FIRST_LIFE = fileURLToPath(new URL('./fixtures/durable-first-life.mjs', import.meta.url));
const CAPABILITIES = {
  'capabilities/counter.json': {
    name: 'counter',
    functions: [{ name: 'bump', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }],
    executor: { kind: 'runtime' },
  },
  'capabilities/mail.json': {
    name: 'mail',
    functions: [{ name: 'send', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }, requiresApproval: true }],
    executor: { kind: 'runtime' },
  },
};

/** Bumps a counter, sends a mail (which asks), bumps another; reads random numbers and the clock on the way. */
const SCRIPT = `import { counter } from '@capabilities/counter';
import { mail } from '@capabilities/mail';
const r1 = Math.random();
const t1 = Date.now();
const a = await counter.bump({ name: 'a' });
console.log(JSON.stringify({ r1, t1 }));
let sent: unknown;
try { sent = await mail.send({ to: 'bob' }); } catch (error) { sent = (error as { code: string }).code; }
const b = await counter.bump({ name: 'b' });
return { r1, t1, a, sent, b, r2: Math.random() };`;

interface FirstLife {
  lines: Record<string, unknown>[];
  child: ChildProcess;
}

/** Starts the first life and resolves once it printed a line `until` accepts. */
async function firstLife(project: Project, job: Record<string, unknown>, until: (line: Record<string, unknown>) => boolean): Promise<FirstLife> {
  const child = spawn(process.execPath, ['--no-node-snapshot', FIRST_LIFE, project.dir, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      if (until(line)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the first life exited (${code}) before it was killed: ${JSON.stringify(lines)}`)));
  });
  return { lines, child };
}

async function kill(life: FirstLife): Promise<void> {
  const exited = new Promise((resolve) => life.child.on('exit', resolve));
  life.child.kill('SIGKILL');
  await exited;
}

async function effects(project: Project): Promise<string[]> {
  return (await readFile(project.path('effects.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

/** The second life: a space over the same project and stores, its handlers doing the same side effects. */
async function secondLife(project: Project, options: Partial<SpaceOptions> = {}): Promise<Space> {
  const outDir = project.path('.agent-spaces');
  const log = (line: string) => writeFile(project.path('effects.log'), `${line}\n`, { flag: 'a' });
  return project.space({
    isolation: 'in-process',
    typecheck: false,
    awaitApprovals: true,
    handlers: {
      counter: { bump: async ({ name }: { name: string }) => (await log(`bump ${name}`), { bumped: name }) },
      mail: { send: async ({ to }: { to: string }) => (await log(`send ${to}`), { sent: to }) },
    },
    stores: { approvals: new FileApprovalStore(outDir), runs: new FileRunStore(outDir) },
    ...options,
  });
}

async function pausedProject(job: Record<string, unknown> = { code: SCRIPT }): Promise<{ project: Project; paused: string; runId: string; life: FirstLife }> {
  const project = await makeProject(CAPABILITIES);
  await project.build();
  const life = await firstLife(project, job, (line) => 'paused' in line);
  const { paused, runId } = life.lines.find((line) => 'paused' in line) as { paused: string; runId: string };
  await kill(life);
  return { project, paused, runId, life };
}

function answer(project: Project, id: string, approved: boolean) {
  return new ApprovalService({ approvals: new FileApprovalStore(project.path('.agent-spaces')) }).answer(id, { approved, by: 'alice', from: 'test' });
}

describe('a run paused for approval, its process killed', () => {
  it('is resumed once approved: the calls made before run once, the approved call once, random numbers and time replayed', async () => {
    const { project, paused, runId, life } = await pausedProject();
    expect(await effects(project)).toEqual(['bump a']);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await answer(project, paused, true);
    const space = await secondLife(project);
    const result: RunResult = await (await space.resume(runId));
    expect(result.ok).toBe(true);
    const first = JSON.parse((life.lines.find((line) => 'log' in line) as { log: string }).log) as { r1: number; t1: number };
    const value = (result as { result: { r1: number; t1: number; a: unknown; sent: unknown; b: unknown } }).result;
    expect(value).toMatchObject({ r1: first.r1, a: { bumped: 'a' }, sent: { sent: 'bob' }, b: { bumped: 'b' } });
    // The clock was replayed from the run's start, not read afresh 1.2 s later.
    expect(Math.abs(value.t1 - first.t1)).toBeLessThan(600);
    expect(await effects(project)).toEqual(['bump a', 'send bob', 'bump b']);
    expect(await new FileRunStore(project.path('.agent-spaces')).kept(runId)).toBeUndefined();
  });

  it('is resumed for the principal it was made for: its calls after the restart carry the same identity', async () => {
    const principal = { id: 'user:alice', subject: 'alice', scopes: ['mcp'], groups: ['sales'] };
    const { project, paused, runId } = await pausedProject({ code: SCRIPT, principal });
    expect(await new FileRunStore(project.path('.agent-spaces')).kept(runId)).toMatchObject({ principal });
    await answer(project, paused, true);
    const seen: unknown[] = [];
    const who = (name: string) => async (params: { name?: string; to?: string }, context: { principal?: unknown }) => (seen.push(context.principal), { [name]: params.name ?? params.to });
    const space = await secondLife(project, { handlers: { counter: { bump: who('bumped') }, mail: { send: who('sent') } } });
    const result: RunResult = await (await space.resume(runId));
    expect(result.ok).toBe(true);
    expect(seen).toEqual([principal, principal]);
  });

  it('is resumed once denied: the denied call never runs, the script goes on with APPROVAL_DENIED', async () => {
    const { project, paused, runId } = await pausedProject();
    await answer(project, paused, false);
    const result: RunResult = await (await (await secondLife(project)).resume(runId));
    expect(result).toMatchObject({ ok: true, result: { sent: 'APPROVAL_DENIED', b: { bumped: 'b' } } });
    expect(await effects(project)).toEqual(['bump a', 'bump b']);
  });

  it('is denied when its approval expired while no process ran, and resumes as denied', async () => {
    const { project, paused, runId } = await pausedProject({ code: SCRIPT, policies: { approvalTimeoutMs: 300 } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const service = new ApprovalService({ approvals: new FileApprovalStore(project.path('.agent-spaces')) });
    expect(await service.list()).toEqual([]);
    await expect(service.answer(paused, { approved: true, by: 'late', from: 'test' })).rejects.toMatchObject({ code: 'APPROVAL_ANSWERED' });
    const result: RunResult = await (await (await secondLife(project)).resume(runId));
    expect(result).toMatchObject({ ok: true, result: { sent: 'APPROVAL_DENIED' } });
    expect(await effects(project)).toEqual(['bump a', 'bump b']);
  });

  it('cannot be resumed when its ledger went over the size budget: REPLAY_UNAVAILABLE, nothing runs', async () => {
    const big = SCRIPT.replace("counter.bump({ name: 'a' })", "counter.bump({ name: 'a'.repeat(5_000) })");
    const { project, paused, runId } = await pausedProject({ code: big, maxLedgerBytes: 4_096 });
    const kept = await new FileRunStore(project.path('.agent-spaces')).kept(runId);
    expect(kept?.replay).toMatchObject({ replayable: false, calls: [] });
    await answer(project, paused, true);
    await expect((await secondLife(project)).resume(runId)).rejects.toMatchObject({ code: 'REPLAY_UNAVAILABLE' });
    expect(await effects(project)).toEqual([`bump ${'a'.repeat(5_000)}`]);
  });

  it('is not resumed before its approval is answered', async () => {
    const { project, runId } = await pausedProject();
    await expect((await secondLife(project)).resume(runId)).rejects.toMatchObject({ code: 'REPLAY_UNAVAILABLE' });
    expect(await effects(project)).toEqual(['bump a']);
  });

  it('ends REPLAY_DIVERGED with no new side effect when the script does not make the calls its ledger holds', async () => {
    for (const tamper of [
      (calls: { params: string }[]) => (calls[0]!.params = JSON.stringify({ name: 'z' })),
      (calls: { function: string }[]) => (calls[0]!.function = 'other'),
      (calls: unknown[]) => calls.unshift({ capability: 'counter', function: 'bump', params: '{"name":"first"}', outcome: { ok: true, value: 1 } }),
    ]) {
      const { project, paused, runId } = await pausedProject();
      const file = project.path(`.agent-spaces/state/runs/${runId}.json`);
      const kept = JSON.parse(await readFile(file, 'utf8')) as { replay: { calls: never[] } };
      tamper(kept.replay.calls);
      await writeFile(file, JSON.stringify(kept));
      await answer(project, paused, true);
      const result: RunResult = await (await (await secondLife(project)).resume(runId));
      expect(result).toMatchObject({ ok: false, error: { code: 'REPLAY_DIVERGED' } });
      expect(await effects(project)).toEqual(['bump a']);
    }
  });
});

describe('a session, its process killed', () => {
  it('is restored with its variables and random sequence, no side effect repeated, and goes on', async () => {
    const project = await makeProject(CAPABILITIES);
    await project.build();
    const session = [
      `import { counter } from '@capabilities/counter';\nconst first = await counter.bump({ name: 's1' });\nconst seed = Math.random();\nreturn seed;`,
      `let total = 40;\ntotal += 2;\nreturn total;`,
      // Refused by the typecheck before it ran: nothing of it is kept, so nothing of it is replayed.
      `const wrong: number = 'not a number';\nreturn wrong;`,
    ];
    const life = await firstLife(project, { session, typecheck: true }, (line) => 'idle' in line);
    expect(life.lines.filter((line) => 'ran' in line).map((line) => (line as { ran: { ok: boolean; error?: { code: string } } }).ran.error?.code)).toEqual([undefined, undefined, 'TYPE_ERROR']);
    expect(await new FileRunStore(project.path('.agent-spaces')).keptRuns()).toHaveLength(2);
    const sessionId = (life.lines.find((line) => 'session' in line) as { session: string }).session;
    const seed = (life.lines.find((line) => 'ran' in line) as { ran: { result: number } }).ran.result;
    await kill(life);
    const space = await secondLife(project);
    const { session: restored } = await space.restoreSession(sessionId);
    expect(restored.id).toBe(sessionId);
    const next = await restored.run(`import { counter } from '@capabilities/counter';\nawait counter.bump({ name: 's2' });\nreturn [first, seed, total, Math.random() !== seed];`);
    expect(next).toMatchObject({ ok: true, result: [{ bumped: 's1' }, seed, 42, true] });
    expect(await effects(project)).toEqual(['bump s1', 'bump s2']);
    await restored.close();
    await expect(space.restoreSession(sessionId)).rejects.toMatchObject({ code: 'REPLAY_UNAVAILABLE' });
  });
});

describe('a run waiting for a person', () => {
  it.each(['in-process', 'process'] as const)('does not spend its time limit on the wait (%s)', async (isolation) => {
    const project = await makeProject(CAPABILITIES);
    await project.build();
    const space = await secondLife(project, { isolation, limits: { timeoutMs: 500 } });
    const run = space.run(SCRIPT, {
      onEvent: (event) => {
        if (event.type === 'approvalRequired') setTimeout(() => void space.approvals.resolve(event.id, { approved: true }), 1_500);
      },
    });
    expect(await run).toMatchObject({ ok: true, result: { sent: { sent: 'bob' }, b: { bumped: 'b' } } });
    const unheld = await space.run(`import { counter } from '@capabilities/counter';\nawait counter.bump({ name: 'c' });\nconst end = Date.now() + 2_000;\nwhile (Date.now() < end) {}\nreturn 1;`);
    expect(unheld).toMatchObject({ ok: false, error: { code: expect.stringMatching(/^(TIMEOUT|CPU_LIMIT)$/) } });
  });
});
