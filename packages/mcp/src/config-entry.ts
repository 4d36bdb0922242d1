/**
 * `@agent-spaces/mcp/config`: reading and checking `mcpServers` without loading the MCP SDK, for config loading
 * on every CLI start. Everything here is also exported from the package root.
 */
export {
  MCP_PROJECT_FILES,
  findMcpJson,
  isStdioServer,
  parseMcpServers,
  readMcpJson,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
} from './config.js';
