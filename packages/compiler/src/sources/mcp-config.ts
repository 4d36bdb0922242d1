import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { isRecord, type McpServerConfig, type McpServers } from '@agent-spaces/capabilities';
import type { McpClientServers } from '@agent-spaces/mcp/config';
import type { ConfigSource } from '../build.js';

/**
 * One config source per MCP server, labelled `mcpServers.<server>`, leaving out the entries that reach agent-spaces'
 * own MCP server (see {@link selfServers}; `selfUrls` from {@link ownServerUrls}). Discovery and the MCP SDK are
 * imported on the first read, so loading the compiler stays cheap.
 */
export function mcpServerSources(servers: McpServers, selfUrls: readonly string[] = []): ConfigSource[] {
  const skipped = new Set(selfServers(servers, selfUrls));
  return Object.entries(servers)
    .filter(([server]) => !skipped.has(server))
    .map(([server, config]) => ({
      label: `mcpServers.${server}`,
      read: async (context) => (await import('./mcp.js')).readMcpServer(server, config, context),
    }));
}

/**
 * Names of the `mcpServers` entries that reach agent-spaces' own MCP server: one that starts it
 * (`npx agent-spaces mcp serve`, the snippet `agent-spaces init --mcp` writes), or a remote one whose `url` is one of
 * `selfUrls` (this project's `mcp serve --port`, as the config's `server` says). Building them would wrap the project's
 * own tools as `@capabilities/mcp-<name>` (or fail while the server is down), so the build skips them with a note.
 * Nothing is connected to.
 */
export function selfServers(servers: McpServers, selfUrls: readonly string[] = []): string[] {
  return Object.entries(servers)
    .filter(([, config]) => startsOwnServer(config) || isOwnUrl(config, selfUrls))
    .map(([server]) => server);
}

const OWN_BIN = /^(?:(?:@agent-spaces\/cli|agent-spaces)(?:@[\w.^~-]+)?|agent-spaces\.(?:js|cmd))$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]']);
const MCP_PATH = '/mcp';

function startsOwnServer(config: McpServerConfig): boolean {
  if (!('command' in config)) return false;
  const words = [config.command, ...(config.args ?? [])];
  const bin = words.findIndex((word) => OWN_BIN.test(word.startsWith('@') ? word : basename(word)));
  if (bin < 0) return false;
  const rest = words.slice(bin + 1);
  return rest.some((word, i) => word === 'mcp' && rest[i + 1] === 'serve');
}

/**
 * The URLs `agent-spaces mcp serve` answers at for a project, from its config's `server` key: `http://<host>:<port>/mcp`
 * when `server.port` is set (`host` default `127.0.0.1`), and `<server.advertiseUrl>/mcp`. Empty when neither is set
 * (a port given only on the command line cannot be known at build).
 */
export function ownServerUrls(server: Record<string, unknown> | undefined): string[] {
  const urls: string[] = [];
  if (typeof server?.port === 'number') {
    const host = typeof server.host === 'string' ? server.host : '127.0.0.1';
    urls.push(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${server.port}${MCP_PATH}`);
  }
  if (typeof server?.advertiseUrl === 'string') urls.push(`${server.advertiseUrl.replace(/\/+$/, '')}${MCP_PATH}`);
  return urls;
}

/** True when a remote entry's `url` is one of `selfUrls` (any loopback host matching any other, a trailing `/` ignored). */
function isOwnUrl(config: McpServerConfig, selfUrls: readonly string[]): boolean {
  if (!('url' in config) || selfUrls.length === 0) return false;
  const key = urlKey(config.url);
  return key !== undefined && selfUrls.some((url) => urlKey(url) === key);
}

function urlKey(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const host = LOOPBACK.has(url.hostname) ? 'loopback' : url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${host}:${port}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Reads `file` as an MCP client's own config when it is one — a `.json` not named `agent-spaces.config.json` whose top
 * level has `mcpServers` or `servers` and no other key of agent-spaces' config (`isConfigKey`): Claude Desktop's
 * `claude_desktop_config.json` given as `--config`. `${workspaceFolder}` is `workspace`. Resolves to undefined for
 * any other file, which is then read as an agent-spaces config.
 */
export async function readClientConfigFile(
  file: string,
  shown: string,
  workspace: string,
  isConfigKey: (key: string) => boolean,
): Promise<McpClientServers | undefined> {
  if (extname(file) !== '.json' || basename(file) === 'agent-spaces.config.json') return undefined;
  const { parseJsonc, readMcpClientFile } = await import('@agent-spaces/mcp/config');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const json = await parseJsonc(text, shown, file);
  if (!isRecord(json) || (json.mcpServers === undefined && json.servers === undefined)) return undefined;
  if (Object.keys(json).some((key) => key !== 'mcpServers' && isConfigKey(key))) return undefined;
  return readMcpClientFile(file, shown, workspace);
}
