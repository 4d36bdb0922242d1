import { AgentSpacesError, isErrorCode, isRecord } from '@agent-spaces/capabilities';
import type { ApprovalView, ServiceAnswer } from '@agent-spaces/server';

/** What `agent-spaces approvals` reads and answers through: the project's store, or a running server's API. */
export interface ApprovalDesk {
  /** Where the requests are, for messages: the project's folder or the server's URL. */
  readonly where: string;
  list(): Promise<ApprovalView[]>;
  show(id: string): Promise<ApprovalView>;
  answer(id: string, answer: ServiceAnswer): Promise<ApprovalView>;
}

/**
 * The `/approvals` API of a running `mcp serve` at `base` (its root, e.g. `http://127.0.0.1:8080`; a trailing `/mcp`
 * is dropped), with `token` as its bearer token. Errors the server answers come back with their codes
 * (`APPROVAL_NOT_FOUND`, `APPROVAL_ANSWERED`, `UNAUTHORIZED`, …); a server that cannot be reached is `MCP_UNAVAILABLE`
 * (`data.reason: "unreachable"`). Throws `CONFIG_INVALID` for a `base` that is not an http(s) URL.
 */
export function serverDesk(base: string, token: string | undefined): ApprovalDesk {
  let root: URL;
  try {
    root = new URL(base.replace(/\/+$/, '').replace(/\/mcp$/, '') + '/');
  } catch {
    root = new URL('invalid:');
  }
  if (root.protocol !== 'http:' && root.protocol !== 'https:') {
    throw new AgentSpacesError('CONFIG_INVALID', `--server must be the http(s) URL of mcp serve, e.g. http://127.0.0.1:8080; got ${JSON.stringify(base)}`, { field: 'server' });
  }
  const call = (path: string, body?: unknown) => request(new URL(`approvals${path}`, root), token, body);
  const one = (id: string) => `/${encodeURIComponent(id)}`;
  return {
    where: root.origin,
    list: async () => {
      const body = await call('');
      return isRecord(body) && Array.isArray(body.approvals) ? (body.approvals as ApprovalView[]) : [];
    },
    show: async (id) => (await call(one(id))) as ApprovalView,
    answer: async (id, answer) =>
      (await call(`${one(id)}/${answer.approved ? 'approve' : 'deny'}`, { by: answer.by, from: answer.from, ...(answer.reason ? { reason: answer.reason } : {}) })) as ApprovalView,
  };
}

/** One request to the API: its JSON body, or the error it answered rebuilt with its code. */
async function request(url: URL, token: string | undefined, body: unknown): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  let response: Response;
  try {
    response = await fetch(url, body === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch (error) {
    const why = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new AgentSpacesError('MCP_UNAVAILABLE', `Cannot reach mcp serve at ${url.origin}: ${why?.code ?? why?.message ?? (error as Error).message}`, {
      reason: 'unreachable',
      url: url.origin,
    });
  }
  const parsed: unknown = await response.json().catch(() => undefined);
  if (response.ok) return parsed;
  const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : {};
  const message = typeof error.message === 'string' ? error.message : `mcp serve at ${url.origin} answered HTTP ${response.status}`;
  const data = { ...(isRecord(error.data) ? error.data : {}), status: response.status };
  if (isErrorCode(error.code)) throw new AgentSpacesError(error.code, message, data);
  if (response.status === 401 || response.status === 403) throw new AgentSpacesError('UNAUTHORIZED', message, data);
  throw new AgentSpacesError('INTERNAL', message, { ...data, ...(typeof error.code === 'string' ? { code: error.code } : {}) });
}
