import { hostname, userInfo } from 'node:os';
import { jsonText, visibleText } from '@agent-spaces/capabilities';
import type { ApprovalView } from '@agent-spaces/server';
import { toJson } from '../json.js';
import { serverDesk, type ApprovalDesk } from './approvals-client.js';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';

/** Environment variables read for the server's token when `--token` is not given, in order. */
const TOKEN_ENVS = ['AGENT_SPACES_TOKEN', 'AGENT_SPACES_MCP_TOKEN'];
const MAX_MESSAGE = 60;

/**
 * `agent-spaces approvals list [--server URL --token T] [--json]`: the pending approval requests of the project (as
 * `mcp serve` keeps them under `<outDir>/state/approvals/`) or of a running server, oldest first: a table, or
 * `{ "approvals": [ApprovalView…] }`.
 */
export async function list(context: CommandContext): Promise<number> {
  const desk = await openDesk(context);
  const views = await desk.list();
  if (context.values.json === true) {
    context.output.out(toJson({ approvals: views }));
    return 0;
  }
  if (views.length === 0) {
    context.output.err(`No pending approvals in ${desk.where}.`);
    return 0;
  }
  const rows = views.map((view) => [view.id, view.request.space ?? '', what(view), view.request.requestedBy?.id ?? 'local', expiry(view), oneLine(view.request.message)]);
  const header = ['id', 'space', 'call', 'asked by', 'expires', 'message'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) context.output.out(visibleText(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()));
  context.output.info(`${views.length} pending approval(s) in ${desk.where}`);
  return 0;
}

/** `agent-spaces approvals show <id> [--json]`: one request, pending or answered, with its params and code. */
export async function show(context: CommandContext): Promise<number> {
  const desk = await openDesk(context);
  const view = await desk.show(context.positionals[0]!);
  context.output.out(context.values.json === true ? toJson(view) : describe(view));
  return 0;
}

/** `agent-spaces approvals approve <id> [--by NAME] [--reason TEXT] [--json]`: approves a pending request. */
export function approve(context: CommandContext): Promise<number> {
  return answer(context, true);
}

/** `agent-spaces approvals deny <id> [--by NAME] [--reason TEXT] [--json]`: denies a pending request. */
export function deny(context: CommandContext): Promise<number> {
  return answer(context, false);
}

/**
 * Answers request `id` as `--by` (default: the OS user) from `cli on <host>` (the server adds its address when the
 * answer goes over HTTP): `APPROVAL_NOT_FOUND` or `APPROVAL_ANSWERED` (exit 1) when it is not pending.
 */
async function answer(context: CommandContext, approved: boolean): Promise<number> {
  const desk = await openDesk(context);
  const id = context.positionals[0]!;
  const reason = text(context, 'reason');
  const view = await desk.answer(id, { approved, by: text(context, 'by') ?? userName(), from: `cli on ${hostname()}`, ...(reason ? { reason } : {}) });
  if (context.values.json === true) context.output.out(toJson(view));
  else context.output.out(visibleText(`✓ ${approved ? 'approved' : 'denied'} ${view.id} (${what(view)}) as ${view.answer?.by ?? '?'}`));
  return 0;
}

/**
 * The desk the options name: `--server` (with `--token` or its environment variable), else the project's store — in
 * the shared database of `--database-url` (or `$DATABASE_URL`) when there is one, as `mcp serve` replicas keep it.
 * A command makes one request of it: the database is closed after it.
 */
async function openDesk(context: CommandContext): Promise<ApprovalDesk> {
  const server = text(context, 'server');
  if (server !== undefined) {
    const token = text(context, 'token') ?? TOKEN_ENVS.map((name) => process.env[name]).find((value) => value);
    return serverDesk(server, token);
  }
  const project = await loadProject(context);
  const { projectState } = await import('@agent-spaces/server');
  const databaseUrl = text(context, 'database-url') ?? (process.env.DATABASE_URL || undefined);
  const state = await projectState(project.rootDir, project.outDir, databaseUrl);
  const once = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } finally {
      await state.close();
    }
  };
  const { approvals } = state;
  return {
    where: databaseUrl ? 'the shared database' : project.rootDir,
    list: () => once(() => approvals.list()),
    show: (id) => once(() => approvals.show(id)),
    answer: (id, a) => once(() => approvals.answer(id, a)),
  };
}

/** The request as `show` prints it: its fields, then its params and the code of its run, each shown, never acted on. */
function describe(view: ApprovalView): string {
  const { request, answer: given } = view;
  const fields: Array<[string, string | undefined]> = [
    ['call', what(view)],
    ['space', request.space],
    ['run', request.runId],
    ['session', request.sessionId],
    ['asked', request.createdAt],
    ['asked by', request.requestedBy?.id ?? 'local'],
    ['approver', approversText(request)],
    ['expires', request.expiresAt && view.status === 'pending' ? `${request.expiresAt} (${expiry(view)})` : request.expiresAt],
    ['answer', given && `${given.approved ? 'approved' : 'denied'} by ${given.by}${given.from ? ` from ${given.from}` : ''}${given.answeredAt ? ` at ${given.answeredAt}` : ''}`],
    ['reason', given?.reason],
  ];
  const lines = [`approval ${view.id}  ${view.status}`];
  for (const [name, value] of fields) if (value) lines.push(`  ${name.padEnd(8)} ${visibleText(value, '           ')}`);
  const code = codeOf(view);
  lines.push('message:', `  ${visibleText(code && !request.capability ? request.message.split('\n')[0]! : request.message, '  ')}`);
  if (request.capability) lines.push('params:', `  ${jsonText(request.params ?? null, 2).replace(/\n/g, '\n  ')}`);
  lines.push('code:', code === undefined ? '  (the code of this run is not on record)' : `  ${visibleText(code, '  ')}`);
  return lines.join('\n');
}

/** Who may answer the request, in words (`someone other than the requester, a member of admins`), when it says. */
function approversText({ approvers }: ApprovalView['request']): string | undefined {
  if (!approvers) return undefined;
  const parts = [...(approvers.others ? ['someone other than the requester'] : []), ...(approvers.groups ? [`a member of ${approvers.groups.join(' or ')}`] : [])];
  return parts.join(', ') || undefined;
}

/** The agent code of the request's run: its record's, or the script itself for a script approval. */
function codeOf(view: ApprovalView): string | undefined {
  if (view.script !== undefined) return view.script;
  const params = view.request.params as { code?: unknown } | undefined;
  return !view.request.capability && typeof params?.code === 'string' ? params.code : undefined;
}

/** `capability.function`, or `script` for the approval of a whole script. */
function what(view: ApprovalView): string {
  return view.request.capability ? `${view.request.capability}.${view.request.function}` : 'script';
}

function expiry(view: ApprovalView): string {
  const at = view.request.expiresAt === undefined ? NaN : Date.parse(view.request.expiresAt);
  if (Number.isNaN(at)) return '';
  const seconds = Math.max(0, Math.round((at - Date.now()) / 1000));
  return seconds === 0 ? 'expired' : `in ${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

function text(context: CommandContext, name: string): string | undefined {
  const value = context.values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'cli';
  }
}
