import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import type { RunOutcome, AgentSandbox } from '../../src/index.js';
import { createPort } from '../helpers.js';

export function expectCode(outcome: RunOutcome, code: string): void {
  expect(outcome.ok ? 'ok' : `${outcome.error.code}: ${outcome.error.message}`).toMatch(new RegExp(`^${code}`));
}

/** The next run of `sandbox` works (and this process, the host, is still here to see it). */
export async function stillServes(sandbox: AgentSandbox): Promise<void> {
  const outcome = await sandbox.run(`import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 1 });`, { port: createPort() });
  expect(outcome).toMatchObject({ ok: true, value: 2 });
}

/** Pids of this process's sandbox processes that are still running. */
export function sandboxChildren(): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes('process-child'))
    .map(([pid]) => Number(pid));
}
