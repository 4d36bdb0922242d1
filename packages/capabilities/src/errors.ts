/**
 * Error codes and the error class shared by every package. Errors that cross the sandbox boundary travel
 * as {@link WireError} and are rebuilt as classes on the other side; tests assert on `code`, never on text.
 */

/** Stable codes of errors the compiler reports. */
export type CompileErrorCode =
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_INVALID'
  | 'SOURCE_NOT_FOUND'
  | 'SOURCE_UNREADABLE'
  | 'INVALID_JSON'
  | 'INVALID_DEFINITION'
  | 'UNKNOWN_TYPE'
  | 'BAD_REF'
  | 'NAME_COLLISION'
  | 'TYPE_EXTRACTION_FAILED'
  | 'INVALID_DECLARATIONS'
  /** An OpenAPI operation the compiler cannot turn into a function (multipart, file upload); the rest still builds. */
  | 'UNSUPPORTED_OPERATION'
  | 'WRITE_FAILED'
  /** An MCP server could not be discovered; `data.reason` says why (`spawn_failed`, `exited`, …). */
  | 'MCP_UNAVAILABLE';

/** Stable codes of errors a run reports (to the host, or to agent code as `CapabilityError.code`). */
export type RunErrorCode =
  | 'TIMEOUT'
  | 'CPU_LIMIT'
  | 'MEMORY_LIMIT'
  | 'MAX_CALLS'
  | 'PAYLOAD_TOO_LARGE'
  | 'LOG_LIMIT'
  | 'ABORTED'
  | 'SYNTAX_ERROR'
  | 'TYPE_ERROR'
  | 'IMPORT_NOT_FOUND'
  | 'SCRIPT_ERROR'
  | 'RESULT_NOT_CLONEABLE'
  | 'SESSION_CLOSED'
  | 'SPACE_CLOSED'
  | 'CAPABILITY_NOT_FOUND'
  | 'FUNCTION_NOT_FOUND'
  | 'INVALID_PARAMS'
  | 'INVALID_RESULT'
  | 'NO_HANDLER'
  | 'HANDLER_ERROR'
  | 'APPROVAL_DENIED'
  | 'POLICY_DENIED'
  | 'RATE_LIMITED'
  | 'ACCESS_DENIED'
  /** An MCP server is unreachable or went away; `data.reason` says why (`spawn_failed`, `server_exited`, …). */
  | 'MCP_UNAVAILABLE'
  /** A capability no longer matches its source (an MCP server's tools changed since the build): rebuild. */
  | 'CAPABILITY_STALE'
  | 'INTERNAL';

/** Stable codes of errors the MCP server (`agent-spaces mcp serve`) returns as structured tool results. */
export type ServerErrorCode =
  /** No space with the given id is served. */
  | 'SPACE_NOT_FOUND'
  /** An `inject` format other than `compiled` / `structured`. */
  | 'INVALID_FORMAT'
  /** No session with the given id for this MCP client (never created, closed, expired or evicted). */
  | 'SESSION_NOT_FOUND'
  /** Tool or prompt arguments are missing or do not match the schema; `data.errors` names each field. */
  | 'INVALID_ARGUMENTS'
  /** No tool with the given name. */
  | 'TOOL_NOT_FOUND'
  /** No prompt with the given name. */
  | 'PROMPT_NOT_FOUND';

/** Every stable error code of agent-spaces. */
export type ErrorCode = CompileErrorCode | RunErrorCode | ServerErrorCode;

/** An error as it crosses a boundary (sandbox <-> host, process <-> process): plain data, never a class. */
export interface WireError {
  code: ErrorCode;
  message: string;
  capability?: string;
  function?: string;
  data?: Record<string, unknown>;
}

/** The one error class of agent-spaces: a stable `code`, a message, and optional structured `data`. */
export class AgentSpacesError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, data?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentSpacesError';
    this.code = code;
    this.data = data;
  }

  /** Plain-data form for sending across a boundary. */
  toWire(): WireError {
    return { code: this.code, message: this.message, ...(this.data ? { data: this.data } : {}) };
  }

  /** Rebuilds an error received from across a boundary. */
  static fromWire(wire: WireError): AgentSpacesError {
    return new AgentSpacesError(wire.code, wire.message, wire.data);
  }
}

/** True when `value` is an {@link AgentSpacesError} (also across package copies). */
export function isAgentSpacesError(value: unknown): value is AgentSpacesError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'string' && value.name === 'AgentSpacesError';
}

/** A problem found while compiling, located by file and JSON pointer; passes return these instead of throwing. */
export interface Diagnostic {
  code: CompileErrorCode;
  severity: 'error' | 'warning';
  /** Path of the source file, relative to the config file's folder. */
  file: string;
  /** JSON pointer of the field inside the file (`/functions/0/parameters/properties/unit`), when known. */
  pointer?: string;
  message: string;
}
