/**
 * `@agent-spaces/mcp/config`: reading and checking `mcpServers` and the MCP client files (`.mcp.json`,
 * `.cursor/mcp.json`, `.vscode/mcp.json`, `claude_desktop_config.json`) without loading the MCP SDK, for config loading
 * on every CLI start. Everything here is also exported from the package root.
 */
export {
  isStdioServer,
  parseMcpServers,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
} from './config.js';
export {
  addClientServer,
  MCP_CLIENT_FILES,
  MCP_PROJECT_FILES,
  parseJsonc,
  readMcpClientFile,
  readProjectMcpServers,
  type McpClientServers,
} from './client-config.js';
export { inputVariable } from './inputs.js';
