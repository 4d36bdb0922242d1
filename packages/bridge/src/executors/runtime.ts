import { AgentSpacesError, type HandlerContext } from '@agent-spaces/capabilities';
import type { Executor, ExecutorContext, FunctionRef } from './executor.js';

/** A handler as the executor calls it: with the params the bridge validated against the function's schema. */
type RuntimeHandler = (params: Record<string, unknown>, context: HandlerContext) => unknown;

/**
 * The `runtime` executor: handlers given at run time, found as `handlers[id]` or `handlers[exportName]`, then
 * `[name]` or `[sourceName]` (own properties only). A missing handler fails the call with `NO_HANDLER`.
 */
export function runtimeExecutor(context: ExecutorContext): Executor {
  const group = own(context.handlers, context.id) ?? own(context.handlers, context.exportName);
  return {
    execute(fn: FunctionRef) {
      const handler = own(group, fn.name) ?? own(group, fn.sourceName);
      if (typeof handler !== 'function') {
        const message = `No handler for ${context.id}.${fn.name}: pass handlers: { '${context.id}': { ${fn.name}: (params) => … } }`;
        return () => Promise.reject(new AgentSpacesError('NO_HANDLER', message, { capability: context.id, function: fn.name }));
      }
      const run = handler as RuntimeHandler;
      return async (params, handlerContext) => run(params, handlerContext);
    },
  };
}

function own(record: unknown, key: string): unknown {
  if (typeof record !== 'object' || record === null || !Object.hasOwn(record, key)) return undefined;
  return (record as Record<string, unknown>)[key];
}
