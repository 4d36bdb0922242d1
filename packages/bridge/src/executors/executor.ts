import type { McpTaskSupport, UserCredentials } from '@agent-spaces/capabilities';
import type { RuntimeHandlers, HostFunction } from '../types.js';
import type { McpClientPool } from '@agent-spaces/mcp';

/** The names of one function, as the loader hands them to an executor. */
export interface FunctionRef {
  name: string;
  sourceName: string;
  /** How an MCP tool runs as a task, when it may. */
  task?: McpTaskSupport | undefined;
}

/** Where a built capability lives, for executors that need its files or ids. */
export interface ExecutorContext {
  id: string;
  exportName: string;
  /** The capability's build folder (`<outDir>/<id>`). */
  dir: string;
  handlers: RuntimeHandlers | undefined;
  mcp: McpClientPool | undefined;
  /** Hears the data of each result of an MCP tool without an output schema (`LoadOptions.onMcpToolData`): id, tool, data. */
  onMcpToolData?: ((id: string, tool: string, data: unknown) => void) | undefined;
  /** Where `${user:NAME}` of `http` headers and `openapi` auth and headers resolve (`LoadOptions.userSecrets`). */
  userSecrets?: UserCredentials | undefined;
}

/** Binds a capability's functions to the place their calls go. */
export interface Executor {
  execute(fn: FunctionRef): HostFunction['execute'];
  /** The definition's own approval message function, when the executor has one for `fn`. */
  approvalMessage?(fn: FunctionRef): ((params: Record<string, unknown>) => string) | undefined;
}
