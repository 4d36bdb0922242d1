import type { JsonSchema } from './json-schema.js';
import type { Principal } from './principal.js';
import type { RatePeriod } from './rate-periods.js';

/**
 * A parameter in the shorthand of `defineTool()` (seed 002): any JSON Schema for the value plus
 * `required: true` / `optional: true`. A parameter is required only when it says `required: true`.
 */
export type ParamShorthand = DistributiveOmit<JsonSchema, 'required'> & {
  /** The caller must pass this parameter. */
  required?: boolean;
  /** The caller may leave this parameter out (the default). */
  optional?: boolean;
};

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The `parameters` of a `defineTool()` function: a record of shorthand parameters. */
export type ParamsShorthand = Record<string, ParamShorthand>;

/** The TypeScript type of one shorthand parameter's value. */
export type ParamValue<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'string' }
    ? string
    : S extends { type: 'number' | 'integer' }
      ? number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'array' }
          ? unknown[]
          : S extends { type: 'object' }
            ? Record<string, unknown>
            : unknown;

type RequiredKeys<P> = { [K in keyof P]: P[K] extends { required: true } ? K : never }[keyof P];

/** The object a handler receives for shorthand parameters `P`. */
export type InferParams<P> = P extends object
  ? { [K in RequiredKeys<P>]: ParamValue<P[K]> } & { [K in Exclude<keyof P, RequiredKeys<P>>]?: ParamValue<P[K]> }
  : Record<string, never>;

/** What a host handler is given besides its parameters. */
export interface HandlerContext {
  /** The capability's name, as in its definition. */
  capability: string;
  /** The function's name, as in its definition. */
  function: string;
  /** Aborted when the run is aborted or times out. */
  signal: AbortSignal;
  /**
   * Reports how far the call has got: each report becomes a `progress` event of the run (an MCP server's
   * `notifications/progress` arrive this way). `progress` grows with each report; with `total`, `progress / total` is
   * the fraction done.
   */
  progress(update: ProgressUpdate): void;
  /** Who the call is made for (over `mcp serve`, the client's proven identity), when the run was given one. */
  principal?: Principal;
}

/** One progress report of a running call ({@link HandlerContext.progress}). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * `{ requests, period, per? }`: at most `requests` calls per `period` — for the whole space (`per: 'space'`, the
 * default) or for each principal apart (`per: 'user'`: one window per principal id).
 */
export interface RateLimit {
  requests: number;
  period: RatePeriod;
  per?: 'space' | 'user';
}

/** Capability-wide settings (`config` in both definition formats). */
export interface CapabilityConfig {
  requiresApproval?: boolean;
  rateLimit?: RateLimit;
}

/** One function of a `defineTool()` capability. Its handler runs on the host, never in the sandbox. */
export interface FunctionDefinition<P = ParamsShorthand, R = unknown> {
  description: string;
  parameters?: P;
  /** A type carrier: `returns: {} as Trip[]`. The compiler reads the type `Trip[]`; the value is ignored. */
  returns?: R;
  handler: (params: InferParams<P>, context: HandlerContext) => R | Promise<R>;
  requiresApproval?: boolean;
  approvalMessage?: (params: InferParams<P>) => string;
}

/** A capability written in TypeScript with `defineTool()`. */
export interface ToolDefinition<F = Record<string, FunctionDefinition>> {
  name: string;
  description?: string;
  version?: string;
  functions: F;
  config?: CapabilityConfig;
}

/** Any `defineTool()` value, whatever the parameter and result types of its functions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- P is both read (parameters) and written (handler): only any admits every definition
export type AnyToolDefinition = ToolDefinition<Record<string, FunctionDefinition<any, any>>>;

/**
 * Declares a capability in TypeScript. Identity at run time; its types give each handler typed parameters
 * (inferred from the shorthand `parameters`) and tie the handler's result to `returns`.
 * @example
 * export const notes = defineTool({
 *   name: 'notes',
 *   functions: {
 *     create: {
 *       description: 'Create a note',
 *       parameters: { title: { type: 'string', required: true } },
 *       returns: {} as { id: string },
 *       handler: async ({ title }) => ({ id: title }),
 *     },
 *   },
 * });
 */
export function defineTool<const P extends { [K in keyof R]: unknown }, R extends Record<string, unknown>>(
  definition: ToolDefinition<{ [K in keyof P & keyof R]: FunctionDefinition<P[K], R[K]> }>,
): ToolDefinition<{ [K in keyof P & keyof R]: FunctionDefinition<P[K], R[K]> }> {
  return definition;
}
