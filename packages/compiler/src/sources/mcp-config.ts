import { basename } from 'node:path';
import type { McpServerConfig, McpServers } from '@agent-spaces/capabilities';
import type { ConfigSource } from '../build.js';

/**
 * One config source per MCP server, labelled `mcpServers.<server>`, leaving out servers that start agent-spaces' own
 * MCP server (see {@link selfServers}). Discovery and the MCP SDK are imported on the first read, so loading the
 * compiler stays cheap.
 */
export function mcpServerSources(servers: McpServers): ConfigSource[] {
  const skipped = new Set(selfServers(servers));
  return Object.entries(servers)
    .filter(([server]) => !skipped.has(server))
    .map(([server, config]) => ({
      label: `mcpServers.${server}`,
      read: async (context) => (await import('./mcp.js')).readMcpServer(server, config, context),
    }));
}

/**
 * Names of the `mcpServers` entries that start agent-spaces' own MCP server (`npx agent-spaces mcp serve`, the
 * snippet `agent-spaces init` writes for Claude Code): building them would wrap the project's own tools as
 * `@capabilities/mcp-<name>`, so the build skips them with a note.
 */
export function selfServers(servers: McpServers): string[] {
  return Object.entries(servers)
    .filter(([, config]) => startsOwnServer(config))
    .map(([server]) => server);
}

const OWN_BIN = /^(?:(?:@agent-spaces\/cli|agent-spaces)(?:@[\w.^~-]+)?|agent-spaces\.(?:js|cmd))$/;

function startsOwnServer(config: McpServerConfig): boolean {
  if (!('command' in config)) return false;
  const words = [config.command, ...(config.args ?? [])];
  const bin = words.findIndex((word) => OWN_BIN.test(word.startsWith('@') ? word : basename(word)));
  if (bin < 0) return false;
  const rest = words.slice(bin + 1);
  return rest.some((word, i) => word === 'mcp' && rest[i + 1] === 'serve');
}
