import type { ConfigSource } from '../build.js';
import type { ResolvedConfig } from '../config/load.js';
import { mcpServerSources } from './mcp-config.js';

/**
 * The sources a config declares outside `capabilities`: one per MCP server (`mcpServers`) and one per OpenAPI
 * source (`openapi`). Each is read on every build; see {@link ConfigSource}.
 */
export function configSources(config: ResolvedConfig): ConfigSource[] {
  return [...mcpServerSources(config.mcpServers)];
}
