import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { SupervisedChild } from '../../src/process/parent/supervised-child.js';
import { transpile } from '../../src/script/transpile.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { createPort } from '../helpers.js';

const { dir } = await makeProject();

const RUN = { script: transpile('return 1;'), limits: { ...DEFAULT_LIMITS, maxPayloadBytes: 1_000, timeoutMs: 10_000 } };

/**
 * A child that plays the protocol until the run arrives, then sends what `forge(runId)` (JavaScript source) makes of
 * it, as a child owned by agent code could.
 */
function forgedChild(name: string, forge: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    [
      `const forge = ${forge};`,
      `process.on('message', (m) => {`,
      `  if (m.kind === 'init') process.send({ kind: 'ready' });`,
      `  if (m.kind === 'run') for (const message of [].concat(forge(m.runId))) process.send(message);`,
      `});`,
      `process.on('disconnect', () => process.exit());`,
    ].join('\n'),
  );
  return file;
}

describe('a sandbox process that forges messages', () => {
  it.each([
    ['a call whose capability is no string', `(runId) => ({ kind: 'call', runId, seq: 1, capability: 1, function: 'f' })`],
    ['a call for a run it is not running', `(runId) => ({ kind: 'call', runId: runId + 1, seq: 1, capability: 'math', function: 'add' })`],
    ['a second ready', `() => ({ kind: 'ready' })`],
    ['an end with a result over maxPayloadBytes', `(runId) => ({ kind: 'end', runId, outcome: { ok: true, value: 'x'.repeat(2000), logs: [], stats: { cpuTimeMs: 1 } }, rssBytes: 1 })`],
    ['a log of an unknown level', `(runId) => ({ kind: 'log', runId, entry: { level: 'shout', message: 'x', timestamp: '' } })`],
    ['more calls than maxCapabilityCalls', `(runId) => Array.from({ length: 1001 }, (_, i) => ({ kind: 'call', runId, seq: i + 1, capability: 'math', function: 'add' }))`],
  ])('is stopped for %s: the run ends with SANDBOX_CRASHED, cause protocol', async (name, forge) => {
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const child = new SupervisedChild(forgedChild(name.replaceAll(' ', '-'), forge), { modules: new Map(), memoryMb: RUN.limits.memoryMb, warmUp: () => Promise.resolve(RUN), maxRssMb: 512 }, {
      available: () => ready(),
      exited: () => {},
    });
    await started;
    const port = createPort();
    const outcome = await child.run(RUN, { port }, undefined, performance.now());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { cause: 'protocol' } } });
    expect(child.state).toBe('dead');
    await child.exit;
  });
});
