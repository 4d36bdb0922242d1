export * from './config-entry.js';
export { expandServerConfig, loadMcpEnv, parseDotEnv, prepareServer, type ExpandedServerConfig, type McpEnv, type McpEnvOptions } from './env.js';
export type { McpExit, McpFailureReason } from './errors.js';
export type { ConnectOptions } from './connect.js';
export {
  discover,
  discoverAll,
  hashTools,
  type McpDiscovery,
  type McpDiscoveryOutcome,
  type McpPrompt,
  type McpResource,
  type McpTool,
} from './discover.js';
export { McpClientPool, type McpCallOptions, type McpPoolOptions } from './pool.js';
export type { McpToolResult } from './result.js';
export { createMcpExecutor, type McpExecutor, type McpExecutorOptions } from './executor.js';
export { MCP_LIST_RESOURCES, MCP_READ_RESOURCE, parseMcpSourceName, promptSourceName, type McpTarget } from './source-names.js';
