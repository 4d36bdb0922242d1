// createSpace() end to end: the repo's example capabilities built into a temporary folder, run in the real sandbox.
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type RunEvent } from '@agent-spaces/capabilities';
import { buildCapabilities } from '@agent-spaces/compiler';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
let project: Project;
let outDir: string;
let space: Space;

const COUNTER = {
  name: 'counter',
  description: 'A counter kept by the host application',
  functions: [
    { name: 'add', description: 'Add to the counter', parameters: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] }, returns: { type: 'integer' } },
  ],
  executor: { kind: 'runtime' },
};

beforeAll(async () => {
  project = await makeProject();
  outDir = project.path('out');
  await mkdir(project.path('extra'));
  await project.write({ 'extra/counter.json': COUNTER });
  const examples = await buildCapabilities({ rootDir: repo, sources: ['capabilities/train-schedule.ts', 'capabilities/notes.ts'], outDir });
  const extra = await buildCapabilities({ rootDir: project.dir, sources: ['extra/counter.json'], outDir: project.path('out2') });
  expect([...examples.capabilities, ...extra.capabilities].map((c) => c.status)).toEqual(['built', 'built', 'built']);
  space = await createSpace({ rootDir: repo, outDir, capabilities: ['train-schedule', 'notes'], std: { fs: { root: project.path('ws'), write: true } } });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

const MORNING = `
import { trainSchedule, type Trip } from '@capabilities/train-schedule';
const trips: Trip[] = await trainSchedule.getSchedule({ station: 'Central' });
console.log('trips', trips.length);
return new Map(trips.filter((t) => t.hour < 12).map((t) => [t.id, t.destination]));
`;

describe('space.run', () => {
  it('returns the value with structured-clone fidelity, logs and stats', async () => {
    const result = await space.run(MORNING);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.result).toBeInstanceOf(Map);
    expect((result.result as Map<string, string>).size).toBeGreaterThan(0);
    expect(result.logs.map((l) => [l.level, l.message])).toEqual([['log', expect.stringMatching(/^trips \d+$/)]]);
    expect(result.stats.capabilityCalls).toBe(1);
  });

  it('streams the same events to the callback, the async iterator and the result, in order', async () => {
    const seen: RunEvent[] = [];
    const run = space.run(MORNING, { onEvent: (e) => seen.push(e) });
    const iterated: RunEvent[] = [];
    for await (const event of run) iterated.push(event);
    const result = await run;
    expect(result.events.map((e) => e.type)).toEqual(['runStarted', 'capabilityCall', 'capabilityResult', 'log', 'runFinished']);
    expect(iterated).toEqual(result.events);
    expect(seen).toEqual(result.events);
    expect(new Set(result.events.map((e) => e.runId))).toEqual(new Set([run.id]));
    const call = result.events[1] as Extract<RunEvent, { type: 'capabilityCall' }>;
    const done = result.events[2] as Extract<RunEvent, { type: 'capabilityResult' }>;
    expect(call).toMatchObject({ capability: 'train-schedule', function: 'getSchedule', params: { station: 'Central' } });
    expect(done).toMatchObject({ callId: call.callId, ok: true });
    for (const event of result.events) expect(Date.parse(event.timestamp)).not.toBeNaN();
  });

  it('stops a run with a type error at the agent line and column, before any call', async () => {
    const code = "import { trainSchedule } from '@capabilities/train-schedule';\n\nconst n: number = 'three';\nawait trainSchedule.getSchedule({ station: 'Central' });\n";
    const result = await space.run(code);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TYPE_ERROR');
    expect(result.error.message).toContain('3:');
    const diagnostics = (result.error.data as { diagnostics: { line: number; column: number; code: number }[] }).diagnostics;
    expect(diagnostics).toEqual([expect.objectContaining({ line: 3, column: 7, code: 2322 })]);
    expect(result.stats.capabilityCalls).toBe(0);
    expect(await space.check(code)).toHaveLength(1);
    expect(await space.check(MORNING)).toEqual([]);
  });

  it('runs without the typecheck when asked, and then fails at run time instead', async () => {
    const result = await space.run("const n: number = 'three' as any; return typeof n;", { typecheck: false });
    expect(result).toMatchObject({ ok: true, result: 'string' });
  });

  it('gives the agent a CapabilityError it can catch for invalid params', async () => {
    const result = await space.run(`
      import { trainSchedule } from '@capabilities/train-schedule';
      try { await trainSchedule.getSchedule({ station: 42 } as any); return 'no error'; }
      catch (e: any) { return [e.name, e.code, e.capability, e.function]; }
    `);
    expect(result).toMatchObject({ ok: true, result: ['CapabilityError', 'INVALID_PARAMS', 'train-schedule', 'getSchedule'] });
  });

  it('offers @agent-spaces/std with fs confined to the space workspace', async () => {
    const result = await space.run(`
      import { fs, csv } from '@agent-spaces/std';
      await fs.writeFile('trips.csv', csv.stringify([{ id: 'RL101', platform: 1 }]));
      let outside = '';
      try { await fs.readFile('../../etc/passwd'); } catch (e: any) { outside = e.code; }
      return { rows: csv.parse(await fs.readFile('trips.csv'), { header: true }), outside };
    `);
    expect(result).toMatchObject({ ok: true, result: { rows: [{ id: 'RL101', platform: '1' }], outside: 'ACCESS_DENIED' } });
    expect(await readFile(project.path('ws/trips.csv'), 'utf8')).toContain('RL101');
  });

  it('refuses a capability that is not built', async () => {
    await expect(createSpace({ rootDir: repo, outDir, capabilities: ['no-such-thing'] })).rejects.toMatchObject({ code: 'CAPABILITY_NOT_FOUND' });
  });
});

describe('sessions', () => {
  it('typecheck each run against the bindings of the earlier runs', async () => {
    const session = space.createSession();
    try {
      const first = await session.run(`
        import { trainSchedule } from '@capabilities/train-schedule';
        const trips = await trainSchedule.getSchedule({ station: 'Central' });
        function label(n: number): string { return 'trips: ' + n; }
        class Local { x = 1; }
        const local = new Local();
      `);
      expect(first).toMatchObject({ ok: true });
      const second = await session.run('return [label(trips.length), trips[0]!.destination.length > 0, local.x];');
      expect(second).toMatchObject({ ok: true, result: [expect.stringMatching(/^trips: \d+$/), true, 1] });
      const wrong = await session.run('const n: number = label(1);');
      expect(wrong).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', data: { diagnostics: [expect.objectContaining({ line: 1, code: 2322 })] } } });
      expect(await space.check('return label(1);')).toEqual([expect.objectContaining({ code: 2304 })]);
    } finally {
      await session.close();
    }
  });

  it('keep top-level declarations between runs and do not share them', async () => {
    const a = space.createSession();
    const b = space.createSession();
    try {
      expect(await a.run('const greeting = "hi"; function twice(s: string) { return s + s; }', { typecheck: false })).toMatchObject({ ok: true });
      expect(await a.run('return twice(greeting);', { typecheck: false })).toMatchObject({ ok: true, result: 'hihi' });
      expect(await b.run('return typeof greeting;', { typecheck: false })).toMatchObject({ ok: true, result: 'undefined' });
      expect(await space.run('return typeof greeting;', { typecheck: false })).toMatchObject({ ok: true, result: 'undefined' });
    } finally {
      await a.close();
      await b.close();
    }
    expect(await a.run('return 1;')).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED' } });
  });
});

describe('handlers and inline definitions', () => {
  it('sends calls of a runtime capability to the handlers given to createSpace', async () => {
    let total = 0;
    const counting = await createSpace({
      rootDir: project.dir,
      outDir: project.path('out2'),
      handlers: { counter: { add: ({ by }: { by: number }) => (total += by) } },
    });
    try {
      const result = await counting.run(`
        import { counter } from '@capabilities/counter';
        await Promise.all([1, 2, 3].map((by) => counter.add({ by })));
        return counter.add({ by: 10 });
      `);
      expect(result).toMatchObject({ ok: true, result: 16 });
      expect(total).toBe(16);
    } finally {
      await counting.close();
    }
  });

  it('compiles a defineTool() value and a JSON definition given inline', async () => {
    const greeter = defineTool({
      name: 'greeter',
      functions: {
        greet: { description: 'Greet someone', parameters: { name: { type: 'string', required: true } }, returns: {} as string, handler: async ({ name }) => `Hello, ${name}!` },
      },
    });
    const inline = await createSpace({
      rootDir: project.dir,
      outDir: project.path('out2'),
      capabilities: [greeter, { ...COUNTER, name: 'tally' }],
      handlers: { tally: { add: ({ by }: { by: number }) => by * 2 } },
    });
    try {
      expect(inline.capabilities).toEqual(['greeter', 'tally']);
      expect(inline.declarations().get('greeter.d.ts')).toContain("declare module '@capabilities/greeter'");
      const result = await inline.run(`
        import { greeter } from '@capabilities/greeter';
        import { tally } from '@capabilities/tally';
        return [await greeter.greet({ name: 'Ada' }), await tally.add({ by: 21 })];
      `);
      expect(result).toMatchObject({ ok: true, result: ['Hello, Ada!', 42] });
      const bad = await inline.run(`import { tally } from '@capabilities/tally'; return tally.add({ by: 'x' as any });`);
      expect(bad).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR' } });
    } finally {
      await inline.close();
    }
  });

  it('rejects an invalid inline definition, naming the field', async () => {
    const attempt = createSpace({ rootDir: project.dir, outDir: project.path('out2'), capabilities: [{ name: 'broken', functions: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'strin' } } } }] }] });
    await expect(attempt).rejects.toMatchObject({ code: 'INVALID_DEFINITION', message: expect.stringContaining('capabilities[0]#/functions/0/parameters/properties/a') });
  });
});
