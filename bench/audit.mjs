// Start-up cost of a space with a rate limit over a large audit log: createSpace() rebuilds its rate-limit windows
// from the log, so this is the time every `agent-spaces run` and restarted server pays. Rows: an empty log, then a
// 120 MiB log of a month of calls, with a limit per day (its window: the last day's ≈ 4 MiB, read from the end) and
// per minute. Also: `readAuditLog` over the whole file.
// Build first (npm run build), then:
//   node bench/audit.mjs
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSpace, readAuditLog } from '@agent-spaces/sdk';

const LOG_MIB = 120;
const RUNS = 5;
const DAY_MS = 86_400_000;

/** Writes `mib` MiB of audit lines spread over the last 30 days, oldest first. */
function writeLog(file, mib) {
  const line = (time, n) =>
    `{"time":"${new Date(time).toISOString()}","space":"bench","runId":"run-${n}","callId":"${n}","capability":"std","function":"readFile",` +
    `"params":{"path":"notes/${n}.md"},"decision":{"kind":"allow","by":"default"},"outcome":{"ok":true},"durationMs":0.412}\n`;
  const sample = Buffer.byteLength(line(Date.now(), 1_000_000));
  const lines = Math.floor((mib * 1024 * 1024) / sample);
  const start = Date.now() - 30 * DAY_MS;
  const fd = openSync(file, 'w');
  let chunk = '';
  for (let n = 0; n < lines; n++) {
    chunk += line(start + Math.floor((n / lines) * 30 * DAY_MS), n);
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  return lines;
}

async function startMs(rootDir, period) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const space = await createSpace({
      name: 'bench',
      rootDir,
      capabilities: [],
      isolation: 'in-process',
      typecheck: false,
      policies: { rateLimits: { std: { requests: 1_000_000, period } } },
    });
    times.push(performance.now() - started);
    await space.close();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const root = await mkdtemp(join(tmpdir(), 'bench-audit-'));
try {
  const auditDir = join(root, '.agent-spaces', 'audit');
  mkdirSync(auditDir, { recursive: true });
  const empty = await startMs(root, 'day');
  const lines = writeLog(join(auditDir, 'bench.jsonl'), LOG_MIB);
  const day = await startMs(root, 'day');
  const minute = await startMs(root, 'minute');
  const readStarted = performance.now();
  let read;
  try {
    const { records } = readAuditLog(join(auditDir, 'bench.jsonl'));
    read = `${records.length} records in ${(performance.now() - readStarted).toFixed(0)} ms`;
  } catch (error) {
    read = `fails: ${error.code ?? ''} ${error.message}`;
  }
  console.log(`space start-up with a rate limit (createSpace, median of ${RUNS})`);
  console.log(`  empty audit log                              ${empty.toFixed(1).padStart(8)} ms`);
  for (const [label, ms] of [['per day', day], ['per minute', minute]]) {
    console.log(`  ${LOG_MIB} MiB log (${lines} lines), limit ${label.padEnd(10)} ${ms.toFixed(1).padStart(8)} ms  (${ms >= empty ? "+" : "−"}${Math.abs(ms - empty).toFixed(1)} ms)`);
  }
  console.log(`readAuditLog of the whole ${LOG_MIB} MiB: ${read}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
