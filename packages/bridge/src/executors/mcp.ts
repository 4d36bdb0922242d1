import { AgentSpacesError, type ExecutorSpec } from '@agent-spaces/capabilities';
import type { McpClientPool } from '@agent-spaces/mcp';
import type { Executor } from './executor.js';

/**
 * Binds an `mcp` capability to the mcp package's executor over `pool` (owned by the caller); `onToolData` hears the
 * data of its tools' untyped results. The MCP SDK is imported only when such a capability is loaded.
 */
export async function mcpExecutor(
  spec: Extract<ExecutorSpec, { kind: 'mcp' }>,
  id: string,
  pool: McpClientPool | undefined,
  onToolData?: (id: string, tool: string, data: unknown) => void,
): Promise<Executor> {
  if (!pool) {
    const message = `Capability '${id}' calls MCP server "${spec.server}", but loadCapabilities got no MCP client pool (options.mcp)`;
    throw new AgentSpacesError('CONFIG_INVALID', message, { id, server: spec.server });
  }
  const { createMcpExecutor } = await import('@agent-spaces/mcp');
  const run = createMcpExecutor(pool, spec, onToolData ? { onToolData: (tool, data) => onToolData(id, tool, data) } : {});
  return { execute: (fn) => (params, context) => run(fn, params, context) };
}
