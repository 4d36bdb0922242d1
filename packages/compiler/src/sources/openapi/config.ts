import { readFile } from 'node:fs/promises';
import { isRecord, type Diagnostic, type OpenApiAuth, type OpenApiSourceConfig } from '@agent-spaces/capabilities';

export type { OpenApiSourceConfig } from '@agent-spaces/capabilities';

/**
 * Checks an untrusted `openapi` source entry; returns `{ key, message }` for the first problem (the key is a dotted
 * path inside the entry), or undefined when it is valid.
 */
export function findOpenApiSourceProblem(value: unknown): { key: string; message: string } | undefined {
  if (!isRecord(value)) return { key: '', message: 'must be an object' };
  if (typeof value.name !== 'string' || value.name.trim() === '') return { key: 'name', message: 'must be a non-empty string' };
  if (value.spec === undefined && value.url === undefined) return { key: 'spec', message: 'give "spec" (a file or URL) or "url" (a server to discover)' };
  for (const key of ['spec', 'url', 'baseUrl', 'description'] as const) {
    if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key] === '')) return { key, message: 'must be a non-empty string' };
  }
  for (const key of ['url', 'baseUrl'] as const) {
    if (typeof value[key] === 'string' && !/^https?:\/\//i.test(value[key])) return { key, message: 'must be an http(s) URL' };
  }
  if (value.headers !== undefined && !isStringRecord(value.headers)) return { key: 'headers', message: 'must map header names to strings' };
  if (value.cacheTtl !== undefined && !(typeof value.cacheTtl === 'number' && value.cacheTtl >= 0)) {
    return { key: 'cacheTtl', message: 'must be a number of seconds >= 0' };
  }
  const approval = value.requiresApproval;
  if (approval !== undefined && typeof approval !== 'boolean' && !(isRecord(approval) && Object.values(approval).every((v) => typeof v === 'boolean'))) {
    return { key: 'requiresApproval', message: 'must be a boolean or a map of operation to boolean' };
  }
  if (value.auth !== undefined) return findAuthProblem(value.auth);
  return undefined;
}

function findAuthProblem(auth: unknown): { key: string; message: string } | undefined {
  if (!isRecord(auth)) return { key: 'auth', message: 'must be an object' };
  const need = (keys: readonly string[]) => {
    const missing = keys.find((key) => typeof auth[key] !== 'string');
    return missing ? { key: `auth.${missing}`, message: 'must be a string' } : undefined;
  };
  switch (auth.type) {
    case 'bearer':
      return need(['token']);
    case 'apiKey':
      if (auth.in !== 'header' && auth.in !== 'query') return { key: 'auth.in', message: 'must be "header" or "query"' };
      return need(['name', 'value']);
    case 'basic':
      return need(['username', 'password']);
    default:
      return { key: 'auth.type', message: 'must be "bearer", "apiKey" or "basic"' };
  }
}

/** What {@link readActionServers} found: one source per auto-discovered server, and problems by JSON pointer. */
export interface ActionServers {
  sources: OpenApiSourceConfig[];
  diagnostics: Diagnostic[];
}

/**
 * Reads seed 003's `action_servers.json` as is: `{ "servers": { key: { name, url, description, auto_discover, auth,
 * headers } } }`. `auth` is a bearer token (`"${TOKEN}"`, `"Bearer ${TOKEN}"`) or an `openapi` auth object, its
 * `${VAR}` placeholders resolved from the host environment at call time. Servers with `auto_discover: false` are
 * skipped with a warning (their actions are not discoverable), unknown keys are warned about; `shown` is the path
 * diagnostics name.
 */
export async function readActionServers(file: string, shown = file): Promise<ActionServers> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'SOURCE_NOT_FOUND' : 'INVALID_JSON';
    return { sources: [], diagnostics: [{ code, severity: 'error', file: shown, message: `${shown}: ${(error as Error).message}` }] };
  }
  return parseActionServers(value, shown);
}

/** {@link readActionServers} for a value already parsed. */
export function parseActionServers(value: unknown, shown: string): ActionServers {
  const diagnostics: Diagnostic[] = [];
  const problem = (pointer: string, message: string, severity: Diagnostic['severity'] = 'error') =>
    diagnostics.push({ code: 'INVALID_DEFINITION', severity, file: shown, pointer, message });
  if (!isRecord(value) || !isRecord(value.servers)) {
    problem('/servers', `${shown}: "servers" must be an object`);
    return { sources: [], diagnostics };
  }
  const sources: OpenApiSourceConfig[] = [];
  for (const [key, server] of Object.entries(value.servers)) {
    const pointer = `/servers/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!isRecord(server) || typeof server.url !== 'string' || !/^https?:\/\//i.test(server.url)) {
      problem(pointer, `${shown}: server "${key}" needs an http(s) "url"`);
      continue;
    }
    if (server.auto_discover === false) {
      problem(pointer, `${shown}: server "${key}" has auto_discover: false and is skipped`, 'warning');
      continue;
    }
    for (const field of Object.keys(server)) {
      if (!ACTION_SERVER_KEYS.includes(field)) {
        problem(`${pointer}/${field}`, `${shown}: server "${key}" has an unknown key "${field}", which is ignored (known: ${ACTION_SERVER_KEYS.join(', ')})`, 'warning');
      }
    }
    // `auth` as seed 003 describes it, a bearer token (`"${TOKEN}"`), or any `openapi` auth object.
    const auth = typeof server.auth === 'string' ? { type: 'bearer', token: server.auth.replace(/^Bearer\s+/i, '') } : server.auth;
    const bad = findOpenApiSourceProblem({ name: key, url: server.url, auth, headers: server.headers });
    if (bad) {
      problem(`${pointer}/${bad.key.split('.')[0]}`, `${shown}: server "${key}": ${bad.key} ${bad.message}${bad.key.startsWith('auth') ? ' (or a bearer token string)' : ''}`);
      continue;
    }
    const name = typeof server.name === 'string' && server.name !== '' ? server.name : key;
    sources.push({
      name,
      url: server.url,
      ...(typeof server.description === 'string' ? { description: server.description } : {}),
      ...(auth !== undefined ? { auth: auth as OpenApiAuth } : {}),
      ...(server.headers !== undefined ? { headers: server.headers as Record<string, string> } : {}),
    });
  }
  return { sources, diagnostics };
}

/** The keys of one `action_servers.json` server; others are warned about. */
const ACTION_SERVER_KEYS = ['name', 'url', 'description', 'auto_discover', 'auth', 'headers'];

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}
