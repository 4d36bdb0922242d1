import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { AuditRecord } from '@agent-spaces/sdk';
import type { CommandContext } from './index.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_PARAMS = 80;

/** `agent-spaces audit [--space S] [--since T] [--json]`: prints the audit log(s) of the project's spaces, oldest first. */
export async function audit(context: CommandContext): Promise<number> {
  const { auditLogFile, readAuditLog } = await import('@agent-spaces/sdk');
  const project = await loadProject(context);
  const since = typeof context.values.since === 'string' ? parseSince(context.values.since) : undefined;
  const space = typeof context.values.space === 'string' ? context.values.space : undefined;
  const files = space !== undefined ? [auditLogFile(project.outDir, space)] : await allLogs(join(project.outDir, 'audit'));

  const records: AuditRecord[] = [];
  let malformed = 0;
  for (const file of files) {
    const read = readAuditLog(file, since ? { since } : {});
    records.push(...read.records);
    malformed += read.malformed;
  }
  records.sort((a, b) => a.time.localeCompare(b.time));

  if (context.values.json === true) {
    context.output.out(toJson({ records, malformed }));
    return 0;
  }
  for (const record of records) context.output.out(formatRecord(record));
  context.output.err(
    `${records.length} call(s)${space ? ` in space ${space}` : ''}${since ? ` since ${since.toISOString()}` : ''}` +
      (malformed > 0 ? `; ${malformed} unreadable line(s) skipped` : ''),
  );
  return 0;
}

/** An ISO time, or a duration ago: `30s`, `10m`, `2h`, `7d`. */
function parseSince(text: string): Date {
  const relative = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text.trim());
  if (relative) return new Date(Date.now() - Number(relative[1]) * UNITS[relative[2]!]!);
  const time = Date.parse(text);
  if (Number.isNaN(time)) {
    throw new AgentSpacesError('CONFIG_INVALID', `--since must be an ISO time or a duration like 10m, 2h, 7d; got ${JSON.stringify(text)}`, {
      field: 'since',
    });
  }
  return new Date(time);
}

async function allLogs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** `2026-11-23 18:10:44  default  files.deleteFile {"path":"a"}  ask → approved (terminal prompt)  ok  1.2 ms` */
function formatRecord(record: AuditRecord): string {
  const time = record.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const params = JSON.stringify(record.params) ?? '';
  const call = `${record.capability}.${record.function} ${params.length > MAX_PARAMS ? `${params.slice(0, MAX_PARAMS - 1)}…` : params}`;
  const outcome = record.outcome.ok ? 'ok' : `${record.outcome.code}`;
  return [time, record.space, call, describeDecision(record.decision), outcome, `${record.durationMs.toFixed(1)} ms`].join('  ');
}

function describeDecision(decision: AuditRecord['decision']): string {
  if (!decision) return 'refused before the policy';
  switch (decision.kind) {
    case 'allow':
      return `allowed (${decision.by})`;
    case 'deny':
      return `denied (${decision.by})`;
    case 'ask':
      return `asked (${decision.by}) → ${decision.approved ? 'approved' : 'denied'} by ${decision.answeredBy ?? '?'}`;
  }
}
