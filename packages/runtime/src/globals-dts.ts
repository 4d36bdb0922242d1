/**
 * Declarations of the globals the sandbox gives agent code, for the pre-run typechecker. Agent code also has the
 * ECMAScript built-ins (ES2023) except `SharedArrayBuffer`, `Atomics` and `WebAssembly`, and no timers, `fetch`,
 * `process` or `require`.
 */
export const SANDBOX_GLOBALS_DTS = `/** Globals of the agent-spaces sandbox. */

/** What a failed capability call rejects with. \`code\` is stable: branch on it. */
declare class CapabilityError extends Error {
  constructor(init: {
    code: string;
    message: string;
    capability?: string;
    function?: string;
    data?: Record<string, unknown>;
  });
  /** Stable error code, e.g. \`INVALID_PARAMS\`, \`HANDLER_ERROR\`, \`APPROVAL_DENIED\`, \`RATE_LIMITED\`. */
  readonly code: string;
  /** Id of the capability that was called. */
  readonly capability: string;
  /** Name of the function that was called. */
  readonly function: string;
  /** Details the host attached, if any. */
  readonly data: Record<string, unknown> | undefined;
}

/** A call that needed approval was denied; \`code\` is \`APPROVAL_DENIED\`. */
declare class ApprovalDeniedError extends CapabilityError {}

/** The console of the sandbox: every line is captured with its level and time. */
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
declare var console: Console;
`;
