// An audit log past 512 MiB (a sparse file, so no disk and little time): `agent-spaces audit` streams it, rotated
// files included, and `agent-spaces run` with a rate limit starts from its tail. Through the committed bin.
import { appendFileSync, existsSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
const record = (n: number, time: string) =>
  `${JSON.stringify({ time, space: 'default', callId: String(n), capability: 'std', function: 'crypto.randomUUID', params: { n }, decision: { kind: 'allow', by: 'default' }, outcome: { ok: true }, durationMs: 1 })}\n`;

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: [], policies: { rateLimits: { std: { requests: 2, period: 'minute' } } } },
    'script.ts': `import { crypto } from '@agent-spaces/std';\nexport default (await crypto.randomUUID()).length;\n`,
  });
  const log = project.path('.agent-spaces/audit/default.jsonl');
  await mkdir(project.path('.agent-spaces/audit'), { recursive: true });
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
  writeFileSync(`${log}.1`, record(1, ago(7200)));
  writeFileSync(log, record(2, ago(3600)));
  truncateSync(log, 520 * 1024 * 1024);
  appendFileSync(log, `\n${record(3, ago(10))}`);
  const built = await project.cli(['capabilities', 'build']);
  expect(built.code, built.stderr).toBe(0);
}, 60_000);

describe('an audit log past 512 MiB', () => {
  it('agent-spaces audit --json streams it, rotated file first, the unreadable stretch counted', async () => {
    const { code, stdout, stderr } = await project.cli(['audit', '--json']);
    expect(code, stderr).toBe(0);
    const parsed = JSON.parse(stdout) as { records: { callId: string }[]; malformed: number };
    expect(parsed.records.map((r) => r.callId)).toEqual(['1', '2', '3']);
    expect(parsed.malformed).toBe(1);
  }, 60_000);

  it('agent-spaces audit prints one line per call, with --since', async () => {
    const { code, stdout, stderr } = await project.cli(['audit', '--since', '90m']);
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([expect.stringContaining('std.crypto.randomUUID {"n":2}'), expect.stringContaining('std.crypto.randomUUID {"n":3}')]);
    expect(stderr).toContain('2 call(s)');
  }, 60_000);

  it('agent-spaces run with a rate limit starts from its tail: the call of 10 s ago counts', async () => {
    const runs = [await project.cli(['run', '--json', 'script.ts']), await project.cli(['run', '--json', 'script.ts'])];
    const results = runs.map(({ stdout, stderr }) => {
      try {
        return JSON.parse(stdout) as { ok: boolean; error?: { code: string } };
      } catch {
        throw new Error(`not JSON: ${stdout}\n${stderr}`);
      }
    });
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR' } });
    expect(runs[1]!.stdout).toContain('RATE_LIMITED');
  }, 60_000);
});

describe('policies.audit rotation', () => {
  it('rotates the log of a space by size and keeps `keep` rotated files', async () => {
    const space = await createSpace({ rootDir: project.dir, name: 'rotating', isolation: 'in-process', policies: { audit: { maxBytes: 4096, keep: 1 } } });
    try {
      const result = await space.run(`import { crypto } from '@agent-spaces/std';\nfor (let i = 0; i < 60; i++) await crypto.randomUUID();\nexport default 'done';`);
      expect(result.ok).toBe(true);
    } finally {
      await space.close();
    }
    const log = project.path('.agent-spaces/audit/rotating.jsonl');
    expect([log, `${log}.1`, `${log}.2`].map(existsSync)).toEqual([true, true, false]);
    const { stdout } = await project.cli(['audit', '--space', 'rotating', '--json']);
    const callIds = (JSON.parse(stdout) as { records: { callId: string }[] }).records.map((r) => Number(r.callId));
    expect(callIds.at(-1)).toBe(60);
    expect(callIds).toEqual(callIds.map((_, i) => callIds[0]! + i));
  }, 60_000);
});
