/** The in-sandbox module the runtime provides to generated proxies and the std module: one entry point to the host. */
declare module 'agent-spaces:bridge' {
  /** Calls a host capability function; resolves with its value or rejects with a `CapabilityError`. */
  export function call(capability: string, fn: string, params: unknown): Promise<unknown>;
}
