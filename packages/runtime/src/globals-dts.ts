import { ERROR_CODES, errorCodesOf } from '@agent-spaces/capabilities';

/** The run error codes as a union of string literals, each with its description (codes are `[A-Z_]+`). */
const CODE_UNION = errorCodesOf('run')
  .map((code) => `  /** ${ERROR_CODES[code].description} */\n  | '${code}'`)
  .join('\n');

/**
 * Declarations of the globals the sandbox gives agent code, for the pre-run typechecker. Agent code also has the
 * ECMAScript built-ins (ES2023) except `SharedArrayBuffer`, `Atomics` and `WebAssembly`, and no timers, `fetch`,
 * `process` or `require`. `CapabilityErrorCode` lists the run codes of `ERROR_CODES` (docs/errors.md).
 */
export const SANDBOX_GLOBALS_DTS = `/** Globals of the agent-spaces sandbox. */

/** The stable code of a \`CapabilityError\` (docs/errors.md). */
type CapabilityErrorCode =
${CODE_UNION};

/** What a failed capability call rejects with. \`code\` is stable: branch on it. */
declare class CapabilityError extends Error {
  constructor(init: {
    code: CapabilityErrorCode;
    message: string;
    capability?: string;
    function?: string;
    data?: Record<string, unknown>;
  });
  /** Stable error code, e.g. \`INVALID_PARAMS\`, \`HANDLER_ERROR\`, \`APPROVAL_DENIED\`, \`RATE_LIMITED\`. */
  readonly code: CapabilityErrorCode;
  /** The host's id of the failed call (as in the run's events and the audit log); undefined for errors made by agent code. */
  readonly callId: string | undefined;
  /** Id of the capability that was called. */
  readonly capability: string;
  /** Name of the function that was called. */
  readonly function: string;
  /** Details the host attached, if any. */
  readonly data: Record<string, unknown> | undefined;
}

/** A call that needed approval was denied. */
declare class ApprovalDeniedError extends CapabilityError {
  readonly code: 'APPROVAL_DENIED';
}

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
