import type { HandlerContext, ObjectSchema } from '@agent-spaces/capabilities';
import type { HostFunction } from '@agent-spaces/bridge';

/**
 * Declares one host function of the std capability. `run` receives params already validated against `parameters` by
 * the bridge, which is what makes the cast to `P` sound.
 */
export function stdFunction<P>(
  name: string,
  parameters: ObjectSchema,
  run: (params: P, context: HandlerContext) => Promise<unknown>,
): HostFunction {
  return {
    name,
    sourceName: name,
    parameters,
    requiresApproval: false,
    execute: (params, context) => run(params as P, context),
  };
}
