import { AgentSpacesError, type ExecutorSpec, type HandlerContext } from '@agent-spaces/capabilities';
import type { McpClientPool, McpProgress } from '@agent-spaces/mcp';
import type { Executor } from './executor.js';

/** What `mcp` capabilities need at run time: the host's client pool (owned by the caller) and a progress sink. */
export interface McpBinding {
  /** Connects lazily and is reused across runs; the caller closes it. */
  pool: McpClientPool;
  /** Receives the server's progress notifications of a call, with the call's context. */
  onProgress?: (progress: McpProgress, context: HandlerContext) => void;
  /** Per-call timeout (default: the pool's). */
  timeoutMs?: number;
}

type McpExecutorSpec = Extract<ExecutorSpec, { kind: 'mcp' }>;

/**
 * The `mcp` executor: each function is a tool, resource function or prompt of `spec.server`, called through the
 * pool. Before each call the server's current tool list is compared with the build's `toolsHash`: a change fails
 * the call with `CAPABILITY_STALE` (rebuild). The MCP SDK is imported only when such a capability is loaded.
 */
export async function mcpExecutor(spec: McpExecutorSpec, id: string, binding: McpBinding | undefined): Promise<Executor> {
  if (!binding) {
    const message = `Capability '${id}' calls MCP server "${spec.server}", but loadCapabilities got no MCP client pool (options.mcp)`;
    throw new AgentSpacesError('CONFIG_INVALID', message, { id, server: spec.server });
  }
  const { createMcpExecutor } = await import('@agent-spaces/mcp');
  const { pool } = binding;
  const run = createMcpExecutor(pool, spec.server, {
    ...(binding.onProgress ? { onProgress: binding.onProgress } : {}),
    ...(binding.timeoutMs === undefined ? {} : { timeoutMs: binding.timeoutMs }),
  });
  const { server, toolsHash } = spec;
  return {
    execute: (fn) => async (params, context) => {
      if (toolsHash !== undefined) await pool.checkStale(server, toolsHash);
      return run(fn, params, context);
    },
  };
}
