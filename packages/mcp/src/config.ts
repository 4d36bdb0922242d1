import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AgentSpacesError,
  isRecord,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
  userPlaceholderNames,
} from '@agent-spaces/capabilities';

/**
 * `mcpServers` in exactly the shape Claude Desktop, Cursor and `.mcp.json` files use (the types live in
 * `@agent-spaces/capabilities`, which types the config file). Values may hold `${VAR}` / `${VAR:-default}`
 * placeholders; they stay unexpanded here and are expanded only when a server is connected.
 */
export type { McpRemoteServerConfig, McpServerConfig, McpServers, McpStdioServerConfig };

/** True when `config` starts a local process (it has a `command`). */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return 'command' in config;
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const STDIO_KEYS = new Set(['type', 'command', 'args', 'env', 'cwd']);
const REMOTE_KEYS = new Set(['type', 'url', 'headers']);

/**
 * Validates an `mcpServers` value and returns it typed (a new object; placeholders untouched).
 * Throws `CONFIG_INVALID` naming `where` (the file), the server and the field.
 * @example parseMcpServers(JSON.parse(text).mcpServers, '.mcp.json')
 */
export function parseMcpServers(value: unknown, where = 'mcpServers'): McpServers {
  if (!isRecord(value)) throw invalid(where, undefined, undefined, 'mcpServers must be an object of servers');
  const servers: McpServers = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!SERVER_NAME.test(name)) {
      throw invalid(where, name, undefined, 'server names use letters, digits, "_", "-" and "." and start with a letter or digit');
    }
    servers[name] = parseServer(entry, where, name);
  }
  return servers;
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
  for (const field of remote ? ['url'] : ['command', 'args', 'cwd']) {
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
  const cwd = entry.cwd === undefined ? undefined : nonEmptyString(entry.cwd, where, name, 'cwd');
  return {
    ...(type === 'stdio' ? { type } : {}),
    command,
    ...(args ? { args } : {}),
    ...(env ? { env } : {}),
    ...(cwd ? { cwd } : {}),
  };
}

/**
 * Reads an existing `.mcp.json` / `mcp.json` (Claude Desktop / Cursor format, `{ "mcpServers": {...} }`) as is.
 * Throws `CONFIG_NOT_FOUND`, `INVALID_JSON` or `CONFIG_INVALID`, each naming the file.
 */
export async function readMcpJson(file: string): Promise<McpServers> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentSpacesError('CONFIG_NOT_FOUND', `${file}: cannot read MCP config (${errorText(error)})`, { file });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AgentSpacesError('INVALID_JSON', `${file}: ${errorText(error)}`, { file });
  }
  if (!isRecord(json) || json.mcpServers === undefined) {
    throw new AgentSpacesError('CONFIG_INVALID', `${file}: expected { "mcpServers": { ... } }`, { file, field: 'mcpServers' });
  }
  return parseMcpServers(json.mcpServers, file);
}

/**
 * The files of a project's folder that MCP servers are configured by: `mcpJson`, read in this order when the config
 * has no `mcpServers` ({@link findMcpJson}), and `env`, the `.env` placeholders are expanded from (`loadMcpEnv`).
 */
export const MCP_PROJECT_FILES = { mcpJson: ['.mcp.json', 'mcp.json'], env: '.env' } as const;

/** Path of the project's `.mcp.json`, else `mcp.json`, else undefined. */
export async function findMcpJson(projectRoot: string): Promise<string | undefined> {
  for (const name of MCP_PROJECT_FILES.mcpJson) {
    const file = join(projectRoot, name);
    try {
      await readFile(file);
      return file;
    } catch {
      // not there: try the next name
    }
  }
  return undefined;
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
