import {
  AgentSpacesError,
  isRecord,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
  userPlaceholderNames,
} from '@agent-spaces/capabilities';
import { normalizePlaceholders, type PlaceholderContext } from './placeholder-forms.js';

/**
 * `mcpServers` in the shape Claude Desktop, Claude Code, Cursor and VS Code use (the types live in
 * `@agent-spaces/capabilities`, which types the config file). Values may hold `${VAR}` / `${VAR:-default}`,
 * `${user:NAME}` and `${input:id}` placeholders; they stay unexpanded here and are expanded only when a server is
 * connected (the other forms are read by {@link parseMcpServers}).
 */
export type { McpRemoteServerConfig, McpServerConfig, McpServers, McpStdioServerConfig };

/** True when `config` starts a local process (it has a `command`). */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return 'command' in config;
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const STDIO_KEYS = new Set(['type', 'command', 'args', 'env', 'envFile', 'cwd']);
const REMOTE_KEYS = new Set(['type', 'url', 'headers']);

/**
 * Validates an `mcpServers` value and returns it typed (a new object). Every string's `${...}` forms are read with
 * `normalizePlaceholders` under `context` (default: the file `where`, no workspace folder, no inputs): client forms
 * such as `${env:VAR}` and `${userHome}` are expanded or rewritten, unknown ones refused with `CONFIG_PLACEHOLDER`.
 * Throws `CONFIG_INVALID` naming `where` (the file), the server and the field.
 * @example parseMcpServers(JSON.parse(text).mcpServers, '.mcp.json')
 */
export function parseMcpServers(value: unknown, where = 'mcpServers', context: PlaceholderContext = { file: where }): McpServers {
  if (!isRecord(value)) throw invalid(where, undefined, undefined, 'mcpServers must be an object of servers');
  const servers: McpServers = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!SERVER_NAME.test(name)) {
      throw invalid(where, name, undefined, 'server names use letters, digits, "_", "-" and "." and start with a letter or digit');
    }
    servers[name] = readForms(parseServer(entry, where, name), context, name);
  }
  return servers;
}

/** `config` with the `${...}` forms of each of its strings read (see {@link normalizePlaceholders}). */
function readForms<T extends McpServerConfig>(config: T, context: PlaceholderContext, server: string): T {
  const read = (value: string, field: string) => normalizePlaceholders(value, context, server, field);
  const record = (values: Record<string, string>, field: string) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, read(value, `${field}.${key}`)]));
  const out: Record<string, unknown> = { ...config };
  for (const [field, value] of Object.entries(config)) {
    if (field === 'type') continue;
    if (typeof value === 'string') out[field] = read(value, field);
    else if (Array.isArray(value)) out[field] = value.map((item: string, i) => read(item, `${field}[${i}]`));
    else if (isRecord(value)) out[field] = record(value as Record<string, string>, field);
  }
  return out as T;
}

function parseServer(entry: unknown, where: string, name: string): McpServerConfig {
  if (!isRecord(entry)) throw invalid(where, name, undefined, 'must be an object');
  const type = entry.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse') {
    throw invalid(where, name, 'type', 'must be "stdio", "http" or "sse"');
  }
  const remote = type === 'http' || type === 'sse' || (type === undefined && entry.command === undefined && entry.url !== undefined);
  const allowed = remote ? REMOTE_KEYS : STDIO_KEYS;
  for (const key of Object.keys(entry)) {
    if (!allowed.has(key)) {
      throw invalid(where, name, key, `is not a field of ${remote ? 'a remote (url)' : 'a stdio (command)'} server`);
    }
  }
  for (const field of remote ? ['url'] : ['command', 'args', 'envFile', 'cwd']) {
    if (userPlaceholderNames(entry[field]).length > 0) {
      throw invalid(where, name, field, 'cannot hold ${user:NAME}: per-user secrets go in headers (remote) or env (stdio)');
    }
  }
  if (remote) {
    const url = nonEmptyString(entry.url, where, name, 'url');
    const headers = stringRecord(entry.headers, where, name, 'headers');
    const server: McpRemoteServerConfig = { url };
    if (type === 'http' || type === 'sse') server.type = type;
    if (headers) server.headers = headers;
    return server;
  }
  const command = nonEmptyString(entry.command, where, name, 'command');
  const args = stringArray(entry.args, where, name, 'args');
  const env = stringRecord(entry.env, where, name, 'env');
  const envFile = entry.envFile === undefined ? undefined : nonEmptyString(entry.envFile, where, name, 'envFile');
  const cwd = entry.cwd === undefined ? undefined : nonEmptyString(entry.cwd, where, name, 'cwd');
  return {
    ...(type === 'stdio' ? { type } : {}),
    command,
    ...(args ? { args } : {}),
    ...(env ? { env } : {}),
    ...(envFile ? { envFile } : {}),
    ...(cwd ? { cwd } : {}),
  };
}

function nonEmptyString(value: unknown, where: string, server: string, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalid(where, server, field, 'must be a non-empty string');
  return value;
}

function stringArray(value: unknown, where: string, server: string, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw invalid(where, server, field, 'must be an array of strings');
  return value.map((item, i) => {
    if (typeof item !== 'string') throw invalid(where, server, `${field}[${i}]`, 'must be a string');
    return item;
  });
}

function stringRecord(value: unknown, where: string, server: string, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalid(where, server, field, 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw invalid(where, server, `${field}.${key}`, 'must be a string');
    out[key] = item;
  }
  return out;
}

/** `data.detail` is the problem without the file (`memory.command must be a non-empty string`). */
function invalid(where: string, server: string | undefined, field: string | undefined, problem: string): AgentSpacesError {
  const path = [server, field].filter((part) => part !== undefined).join('.');
  return new AgentSpacesError('CONFIG_INVALID', `${where}: mcpServers${path ? `.${path}` : ''} ${problem}`, {
    file: where,
    detail: path ? `${path} ${problem}` : problem,
    ...(server === undefined ? {} : { server }),
    ...(field === undefined ? {} : { field }),
  });
}

// Re-exported for discover.ts and executor.ts until they import it from @agent-spaces/capabilities.

/** The message of an error-like value. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
