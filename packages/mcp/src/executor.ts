import { AgentSpacesError, checkJsonParams, isRecord, type ExecutorSpec, type HandlerContext, type McpTaskSupport } from '@agent-spaces/capabilities';
import type { McpClientPool } from './pool.js';
import { toToolResult } from './result.js';
import { parseMcpSourceName } from './source-names.js';

/** Executes one function of an MCP capability: `fn.sourceName` says which tool, resource function or prompt. */
export type McpExecutor = (fn: { sourceName: string; task?: McpTaskSupport | undefined }, params: unknown, context: HandlerContext) => Promise<unknown>;

/** What else an MCP executor does with results. */
export interface McpExecutorOptions {
  /**
   * Hears the data of each result of a tool without an output schema (to infer its type), `undefined` for a result
   * without data; must not throw.
   */
  onToolData?: (tool: string, data: unknown) => void;
}

/**
 * The one executor of the capabilities whose `executor` is `{ kind: 'mcp', server, toolsHash }`, calling through
 * `pool`. Before each call the server's current tool list is compared with the build's `toolsHash`: a change fails the
 * call with `CAPABILITY_STALE` (rebuild). A tool with an `outputSchema` resolves to its `structuredContent`, any other
 * tool to `McpToolResult` (`{ content, text, data? }`, its data heard by `options.onToolData`); `listResources` to the resources, `readResource` to the contents, a
 * prompt function to the prompt's messages. A tool whose `fn.task` is `required` is called as an MCP task (its status
 * messages are progress too; an `optional` one gets a plain call). The server's progress notifications go to
 * `context.progress`; the call (or task) is cancelled when `context.signal` aborts. A server whose config holds
 * `${user:NAME}` is called over `context.principal`'s own connection (see `McpClientPool`). Params JSON cannot carry fail with `INVALID_PARAMS`; a result larger than the
 * stdio client reads (10 MiB) with `PAYLOAD_TOO_LARGE`.
 */
export function createMcpExecutor(
  pool: McpClientPool,
  spec: Pick<Extract<ExecutorSpec, { kind: 'mcp' }>, 'server' | 'toolsHash'>,
  options: McpExecutorOptions = {},
): McpExecutor {
  const { server, toolsHash } = spec;
  return async (fn, params, context) => {
    const { principal } = context;
    if (toolsHash !== undefined) await pool.checkStale(server, toolsHash, principal);
    const callOptions = { signal: context.signal, onProgress: context.progress, principal };
    const args = paramsObject(params, context);
    const target = parseMcpSourceName(fn.sourceName);
    switch (target.kind) {
      case 'tool': {
        const result = await pool.callTool(server, target.name, args, fn.task === 'required' ? { ...callOptions, task: true } : callOptions);
        const tool = await pool.tool(server, target.name, principal);
        if (tool?.outputSchema) return result.structuredContent;
        const value = toToolResult(result);
        options.onToolData?.(target.name, value.data);
        return value;
      }
      case 'listResources':
        return pool.listResources(server, callOptions);
      case 'readResource': {
        if (typeof args.uri !== 'string') {
          throw new AgentSpacesError('INVALID_PARAMS', `${context.capability}.${context.function}: uri must be a string`, { server });
        }
        return pool.readResource(server, args.uri, callOptions);
      }
      case 'prompt': {
        const promptArgs: Record<string, string> = {};
        for (const [key, value] of Object.entries(args)) if (value !== undefined) promptArgs[key] = String(value);
        return (await pool.getPrompt(server, target.name, promptArgs, callOptions)).messages;
      }
    }
  };
}

/** The call's params as tool arguments; throws `INVALID_PARAMS` for what JSON cannot carry (a bigint, a `Map`, `NaN`…). */
function paramsObject(params: unknown, context: HandlerContext): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  checkJsonParams(params, `${context.capability}.${context.function}`);
  if (isRecord(params)) return params;
  throw new AgentSpacesError('INVALID_PARAMS', `${context.capability}.${context.function}: params must be an object`, {
    capability: context.capability,
    function: context.function,
  });
}
