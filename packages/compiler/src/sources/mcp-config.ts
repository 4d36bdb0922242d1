import type { McpServers } from '@agent-spaces/capabilities';
import type { ConfigSource } from '../build.js';

/**
 * One config source per MCP server, labelled `mcpServers.<server>`. Discovery and the MCP SDK are imported on the
 * first read, so loading the compiler stays cheap.
 */
export function mcpServerSources(servers: McpServers): ConfigSource[] {
  return Object.entries(servers).map(([server, config]) => ({
    label: `mcpServers.${server}`,
    read: async (context) => (await import('./mcp.js')).readMcpServer(server, config, context),
  }));
}
