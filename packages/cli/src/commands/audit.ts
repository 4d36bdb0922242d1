import { AgentSpacesError, jsonText, visibleText } from '@agent-spaces/capabilities';
import type { AuditArchive, AuditRecord } from '@agent-spaces/sdk';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_PARAMS = 80;

/** The line of a call as it ended. */
type AuditCallRecord = Extract<AuditRecord, { outcome: unknown }>;

/**
 * `agent-spaces audit [--space S] [--since T] [--principal ID] [--database-url URL] [--json]`: prints the audit records of the project's
 * spaces, read through its audit archive (the logs under `.agent-spaces/audit/`, rotated files included; or the shared
 * database of `mcp serve` replicas, `--database-url` or `$DATABASE_URL`), oldest first, streaming them: a log of any
 * size is printed record by record, the line of a call that
 * started waiting for approval as `→ waiting (call <id>)`, each with the principal it was made for (`for user:alice`;
 * lines without one are `local`'s, which `--principal local` selects). `--json` prints one document,
 * `{ "records": [...], "malformed": n }`, one record per line.
 */
export async function audit(context: CommandContext): Promise<number> {
  const { projectState } = await import('@agent-spaces/server');
  const project = await loadProject(context);
  const given = context.values['database-url'];
  const state = await projectState(project.rootDir, project.outDir, typeof given === 'string' ? given : process.env.DATABASE_URL || undefined);
  try {
    return await printAudit(context, state.audit);
  } finally {
    await state.close();
  }
}

/** Prints the records of `archive` that the options select. */
async function printAudit(context: CommandContext, archive: AuditArchive): Promise<number> {
  const since = typeof context.values.since === 'string' ? parseSince(context.values.since) : undefined;
  const space = typeof context.values.space === 'string' ? context.values.space : undefined;
  const principal = typeof context.values.principal === 'string' ? context.values.principal : undefined;
  const json = context.values.json === true;

  let count = 0;
  let asked = 0;
  let malformed = 0;
  const records = archive.records({ ...(space !== undefined ? { space } : {}), ...(since ? { since } : {}), onMalformed: () => malformed++ });
  // JSON: each record is printed once the next one (or the end) says whether a comma follows it.
  let pending: string | undefined;
  if (json) context.output.out('{\n  "records": [');
  for await (const record of records) {
    if (principal !== undefined && (record.principal?.id ?? 'local') !== principal) continue;
    if (json) {
      if (pending !== undefined) context.output.out(`${pending},`);
      pending = `    ${jsonText(record)}`;
    } else {
      context.output.out(visibleText(formatRecord(record)));
    }
    if (record.pending === undefined) count++;
    else asked++;
  }
  if (json) {
    if (pending !== undefined) context.output.out(pending);
    context.output.out(`  ],\n  "malformed": ${malformed}\n}`);
    return 0;
  }
  context.output.err(
    `${count} call(s)${asked > 0 ? ` and ${asked} approval request(s)` : ''}${space ? ` in space ${space}` : ''}${principal ? ` for ${principal}` : ''}` +
      `${since ? ` since ${since.toISOString()}` : ''}` +
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

/**
 * `2026-11-23 18:10:44Z  default  for user:alice  files.deleteFile {"path":"a"}  asked (requiresApproval) → approved by user:bob from console 10.0.0.5  ok  1.2 ms`,
 * or for a call that started waiting for approval: `…  files.deleteFile {"path":"a"}  asked (requiresApproval) → waiting (call 3)`.
 * A line without a principal (`local`) shows none.
 */
function formatRecord(record: AuditRecord): string {
  const head = `${record.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}  ${record.space}${record.principal ? `  for ${record.principal.id}` : ''}`;
  const params = JSON.stringify(record.params) ?? '';
  const call = `${record.capability}.${record.function} ${params.length > MAX_PARAMS ? `${params.slice(0, MAX_PARAMS - 1)}…` : params}`;
  if (record.pending !== undefined) return [head, call, `asked (${record.decision.by}) → waiting (call ${record.callId})`].join('  ');
  const outcome = record.outcome.ok ? 'ok' : `${record.outcome.code}`;
  return [head, call, describeDecision(record.decision), outcome, `${record.durationMs.toFixed(1)} ms`].join('  ');
}

function describeDecision(decision: AuditCallRecord['decision']): string {
  if (!decision) return 'refused before the policy';
  switch (decision.kind) {
    case 'allow':
      return `allowed (${decision.by})`;
    case 'deny':
      return `denied (${decision.by})`;
    case 'ask':
      return `asked (${decision.by}) → ${decision.approved ? 'approved' : 'denied'} by ${decision.answeredBy ?? '?'}${decision.answeredFrom ? ` from ${decision.answeredFrom}` : ''}`;
  }
}
