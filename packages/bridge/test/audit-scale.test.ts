// An audit log that scales: size-based rotation (also with two writers sharing a log), reading the recent window from
// the end without touching the rest, and streaming a log past 512 MiB (a sparse file: no disk, and fast).
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, readAuditLog, streamAuditLogs, type AuditEntry, type AuditRecord } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';

let dir: string;
beforeAll(async () => {
  ({ dir } = await makeProject());
});

const entry = (n: number, time = new Date().toISOString()): AuditEntry => ({
  time,
  callId: String(n),
  capability: 'mail',
  function: 'send',
  params: { to: `user${n}@example.com`, body: 'x'.repeat(100) },
  decision: { kind: 'allow', by: 'default' },
  outcome: { ok: true },
  durationMs: 1,
});
const line = (n: number, time: string) => `${JSON.stringify({ space: 's', ...entry(n, time) })}\n`;
const ids = (records: AuditRecord[]) => records.map((r) => Number(r.callId));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function collect(files: string[], since?: Date): Promise<{ records: AuditRecord[]; malformed: number }> {
  let malformed = 0;
  const records: AuditRecord[] = [];
  for await (const record of streamAuditLogs(files, { ...(since ? { since } : {}), onMalformed: () => malformed++ })) records.push(record);
  return { records, malformed };
}

describe('rotation by size', () => {
  it('renames the file to .1, shifts older ones, keeps `keep` of them, and readers see the kept lines in order', () => {
    const file = join(dir, 'rotate.jsonl');
    const log = new AuditLog(file, 'rotate', { rotation: { maxBytes: 4096, keep: 2 } });
    for (let n = 1; n <= 200; n++) log.append(entry(n));
    log.close();
    expect([file, `${file}.1`, `${file}.2`].map(existsSync)).toEqual([true, true, true]);
    expect(existsSync(`${file}.3`)).toBe(false);
    for (const path of [file, `${file}.1`, `${file}.2`]) expect(statSync(path).size).toBeLessThanOrEqual(4096);
    const { records, malformed } = readAuditLog(file);
    expect(malformed).toBe(0);
    expect(ids(records)).toEqual(range(ids(records)[0]!, 200));
    expect(records.length).toBeGreaterThan(30);
  });

  it('loses no line when two writers share a rotating log', () => {
    const file = join(dir, 'shared.jsonl');
    const rotation = { maxBytes: 8192, keep: 1000 };
    const [a, b] = [new AuditLog(file, 'shared', { rotation }), new AuditLog(file, 'shared', { rotation })];
    for (let n = 1; n <= 400; n++) (n % 2 === 0 ? a : b).append(entry(n));
    a.close();
    b.close();
    const { records, malformed } = readAuditLog(file);
    expect(malformed).toBe(0);
    expect(ids(records).sort((x, y) => x - y)).toEqual(range(1, 400));
    expect(existsSync(`${file}.2`)).toBe(true);
  });

  it('with keep 0 starts over without keeping the old file', () => {
    const file = join(dir, 'keep0.jsonl');
    const log = new AuditLog(file, 'keep0', { rotation: { maxBytes: 4096, keep: 0 } });
    for (let n = 1; n <= 100; n++) log.append(entry(n));
    log.close();
    expect(existsSync(`${file}.1`)).toBe(false);
    expect(ids(readAuditLog(file).records).at(-1)).toBe(100);
  });
});

describe('reading the recent window from the end', () => {
  it('returns the records since a time, across rotated files, without reading what lies before the window', () => {
    const file = join(dir, 'window.jsonl');
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const now = Date.now();
    const recent = (n: number) => new Date(now - (100 - n) * 1000).toISOString();
    // Before the window: a 600 MiB hole (no newline) and a malformed line; reading them would be slow and counted.
    writeFileSync(`${file}.1`, `${line(1, old)}not json\n`);
    truncateSync(`${file}.1`, 600 * 1024 * 1024);
    appendFileSync(`${file}.1`, `\n${line(2, old)}${range(3, 50).map((n) => line(n, recent(n))).join('')}`);
    writeFileSync(file, range(51, 99).map((n) => line(n, recent(n))).join(''));
    const since = new Date(now - 60_000);
    const { records, malformed } = readAuditLog(file, { since });
    expect(malformed).toBe(0);
    expect(ids(records)).toEqual(range(40, 99).filter((n) => Date.parse(recent(n)) >= since.getTime()));
    expect(ids(records).at(-1)).toBe(99);
  });

  it('keeps lines slightly out of order (two processes) within the window', () => {
    const file = join(dir, 'order.jsonl');
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
    writeFileSync(file, [line(1, at(500)), line(2, at(20)), line(3, at(40)), line(4, at(5)), line(5, at(31))].join(''));
    expect(ids(readAuditLog(file, { since: new Date(Date.now() - 30_000) }).records)).toEqual([2, 4]);
  });
});

describe('streaming a log of any size', () => {
  it('streams a log past 512 MiB (a 520 MiB sparse file), counting the unreadable stretch as one malformed line', async () => {
    const file = join(dir, 'huge.jsonl');
    const time = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    writeFileSync(file, line(1, time(1)));
    truncateSync(file, 520 * 1024 * 1024);
    appendFileSync(file, `\n${line(2, time(2))}`);
    const { records, malformed } = await collect([file]);
    expect(ids(records)).toEqual([1, 2]);
    expect(malformed).toBe(1);
    expect(ids(readAuditLog(file).records)).toEqual([1, 2]);
  });

  it('merges several logs (and their rotated files) by time, with since', async () => {
    const [a, b] = [join(dir, 'merge-a.jsonl'), join(dir, 'merge-b.jsonl')];
    const time = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    writeFileSync(`${a}.1`, line(1, time(1)) + line(4, time(4)));
    writeFileSync(a, line(6, time(6)));
    writeFileSync(b, line(2, time(2)) + line(3, time(3)) + 'garbage\n' + line(5, time(5)));
    const all = await collect([a, b]);
    expect(ids(all.records)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(all.malformed).toBe(1);
    expect(ids((await collect([a, b], new Date(time(4)))).records)).toEqual([4, 5, 6]);
    expect(await collect([join(dir, 'missing.jsonl')])).toEqual({ records: [], malformed: 0 });
    expect(readFileSync(a, 'utf8')).toBe(line(6, time(6)));
  });
});
