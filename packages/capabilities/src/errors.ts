/**
 * Error codes and the error class shared by every package. Errors that cross the sandbox boundary travel
 * as {@link WireError} and are rebuilt as classes on the other side; tests assert on `code`, never on text.
 */
import { isRecord } from './shape.js';

/** Where a code is reported: by the compiler, by a run (to the host, or to agent code), or by `mcp serve`. */
export type ErrorFamily = 'compile' | 'run' | 'server';

/** What {@link ERROR_CODES} says about one code. */
export interface ErrorCodeInfo {
  /** Where the code is reported; a code reported in two places lists both. */
  readonly families: readonly ErrorFamily[];
  /** One line for docs/errors.md and the sandbox's declarations. */
  readonly description: string;
}

/**
 * Every stable error code of agent-spaces, with where it is reported and what it means: the one list that the code
 * types below, agent code's `CapabilityError['code']` and docs/errors.md are derived from.
 */
export const ERROR_CODES = {
  CONFIG_NOT_FOUND: {
    families: ['compile'],
    description: 'No config file was found (`data.tried` lists the names looked for), or an MCP config file cannot be read.',
  },
  CONFIG_INVALID: {
    families: ['compile', 'run'],
    description: 'A config value is malformed (a config key, an `mcpServers` entry, policies, run limits); the message names the file and field.',
  },
  CONFIG_PLACEHOLDER: {
    families: ['compile', 'run'],
    description:
      'A `${...}` form in an MCP config that agent-spaces does not expand (`${command:x}`, nested, an undeclared `${input:id}`); the message names the file, server, field and form.',
  },
  SOURCE_NOT_FOUND: { families: ['compile'], description: 'A source path (a definition, a spec, a script to run) names no file.' },
  SOURCE_UNREADABLE: {
    families: ['compile'],
    description: 'A source cannot be read, imported or parsed, or no reader handles its extension.',
  },
  INVALID_JSON: { families: ['compile'], description: 'A file is not valid JSON; the message gives line and column.' },
  INVALID_DEFINITION: {
    families: ['compile'],
    description: 'A field of a definition has the wrong shape; the diagnostic points at it with a JSON pointer.',
  },
  UNKNOWN_TYPE: {
    families: ['compile'],
    description: 'A schema `type` is not one of the seven JSON Schema types, or a shorthand parameter has none.',
  },
  BAD_REF: { families: ['compile'], description: 'A `$ref` does not resolve, is remote, or defines a type as itself.' },
  NAME_COLLISION: { families: ['compile'], description: 'Two functions or two capabilities get the same name or module id.' },
  TYPE_EXTRACTION_FAILED: {
    families: ['compile'],
    description: 'The return type of a `defineTool()` function cannot be emitted as a declaration.',
  },
  INVALID_DECLARATIONS: {
    families: ['compile'],
    description: 'A declaration file given to the typechecker has a bad name (not a relative `.d.ts` path) or no text.',
  },
  IMPORT_REFUSED: {
    families: ['compile'],
    description:
      'A skill or a sandbox-mode npm package imports a file it may not read (an absolute path, one outside its folder, a symlink leading out, an import attribute loading such a file); the message names the import and the file importing it.',
  },
  UNSUPPORTED_OPERATION: {
    families: ['compile'],
    description: 'An OpenAPI operation cannot be turned into a function (multipart, file upload); the rest still builds.',
  },
  WRITE_FAILED: {
    families: ['compile'],
    description: "The build cannot write a capability's output folder or the index files, or `init` would overwrite a file (`data.reason: \"exists\"`).",
  },
  MCP_UNAVAILABLE: {
    families: ['compile', 'run'],
    description: 'An MCP server cannot be discovered, started or reached, or went away; `data.reason` says why (`spawn_failed`, `server_exited`, …).',
  },
  TIMEOUT: {
    families: ['compile', 'run'],
    description: 'The run exceeded its wall-clock limit, a call (MCP, OpenAPI) got no answer in time, or importing a `defineTool()` file at build time did not finish in time.',
  },
  CPU_LIMIT: { families: ['run'], description: 'The run exceeded its CPU-time limit.' },
  MEMORY_LIMIT: { families: ['run'], description: "The run exceeded its memory limit (the isolate's heap)." },
  MAX_CALLS: { families: ['run'], description: 'The run made more capability calls than `maxCapabilityCalls` allows.' },
  PAYLOAD_TOO_LARGE: {
    families: ['run'],
    description:
      "A call's params or result, or the run's result, exceeds `maxPayloadBytes`, or a response body or MCP message exceeds what the host reads (`data.limit`); `data.direction` says which.",
  },
  LOG_LIMIT: { families: ['run'], description: 'The run wrote more console output than `maxLogBytes` allows.' },
  ABORTED: { families: ['run'], description: "The run was aborted by its caller's signal, or ended while a call was waiting." },
  SYNTAX_ERROR: {
    families: ['run'],
    description: "The agent's code does not parse, or uses a form the runtime does not support (a re-export).",
  },
  TYPE_ERROR: {
    families: ['run'],
    description: "The agent's code does not typecheck against the space's declarations; `data.diagnostics` lists the errors.",
  },
  TYPECHECK_LIMIT: {
    families: ['compile', 'run'],
    description:
      "The typecheck of the agent's code (or a skill) went over its budget and was stopped, or its client already has 32 checks waiting; `data.budget` says which (`time`, `memory`, `size`, `queue`) and `data.limit` its value. The run was refused.",
  },
  IMPORT_NOT_FOUND: {
    families: ['run'],
    description: "The agent's code imports a module the space does not offer; the message lists what can be imported.",
  },
  SCRIPT_ERROR: {
    families: ['run'],
    description: "The agent's code threw and did not catch; `data` holds `name`, `message`, `stack` and a `CapabilityError`'s `code`.",
  },
  RESULT_NOT_CLONEABLE: {
    families: ['run'],
    description: "The run's result cannot be copied out of the sandbox (it holds a function, a symbol, …).",
  },
  SESSION_CLOSED: { families: ['run'], description: 'The session was closed before or during the run.' },
  SPACE_CLOSED: { families: ['run'], description: 'The space (its sandbox) was closed before or during the run.' },
  SANDBOX_CRASHED: {
    families: ['run'],
    description: "The run's sandbox process died (`isolation: 'process'`); `data` holds `signal`, `exitCode` and the likely `cause` (`memory`, `crash`, …).",
  },
  SANDBOX_UNAVAILABLE: {
    families: ['run'],
    description: "The sandbox cannot start: isolated-vm's native module does not load (not installed, its build failed or was skipped, built for another Node), or isolates were asked for in a process started without `--no-node-snapshot` (`isolation: 'in-process'`); `data.cause` says which, and `agent-spaces doctor` says how to fix a module that does not load.",
  },
  CAPABILITY_NOT_FOUND: {
    families: ['run'],
    description: 'No capability with that id in the space, no built capability of that id, or no such MCP server.',
  },
  FUNCTION_NOT_FOUND: { families: ['run'], description: 'The capability has no function with that name.' },
  INVALID_PARAMS: {
    families: ['run'],
    description: "A call's params do not match the function's schema (or are not plain data); `data.errors` names each field.",
  },
  INVALID_RESULT: { families: ['run'], description: "A call's result cannot be copied into the sandbox." },
  NO_HANDLER: { families: ['run'], description: 'No host handler implements the called function.' },
  HANDLER_ERROR: {
    families: ['run'],
    description: "The function's handler, HTTP endpoint, OpenAPI operation or MCP tool failed; `data` may hold `status` or `mcpCode`.",
  },
  APPROVAL_DENIED: {
    families: ['run'],
    description: 'The call (or the whole script) needed approval and was denied, timed out or had no approver.',
  },
  APPROVAL_NOT_FOUND: {
    families: ['server'],
    description: 'No approval request has this id (never made, withdrawn, or answered long ago and no longer kept).',
  },
  APPROVAL_ANSWERED: {
    families: ['server'],
    description: 'The approval request was answered already (`data.answer` says how): the first answer stands.',
  },
  UNAUTHORIZED: {
    families: ['server'],
    description:
      "`mcp serve` refused a request to its `/approvals` API: no valid bearer token (`data.status: 401`), or a `Host` or `Origin` it does not allow (`403`).",
  },
  FORBIDDEN: {
    families: ['server'],
    description:
      "`mcp serve` refused a valid access token (`server.auth`) that lacks a scope the request needs (`data.scope`, HTTP 403 `insufficient_scope`), or a request for something another principal owns (an MCP session it did not start).",
  },
  ISSUER_UNAVAILABLE: {
    families: ['server'],
    description:
      "`mcp serve` could not fetch its authorization server's keys (`server.auth`) to check a new token: the request was refused with HTTP 503 before anything ran; retry once the issuer answers.",
  },
  APPROVER_NOT_ALLOWED: {
    families: ['server'],
    description:
      'The principal who answered an approval request may not answer it: the space requires an approver other than the requester (`policies.approvers.others`) or one in `data.groups` (docs/policies.md, "Who may approve").',
  },
  REPLAY_DIVERGED: {
    families: ['run'],
    description: "A resumed or restored run made a call its ledger does not hold at that point (`data.index`, `data.expected`); it ended before any new side effect.",
  },
  REPLAY_UNAVAILABLE: {
    families: ['run', 'server'],
    description: 'A paused run or a session cannot be resumed from its record: the ledger went over its size budget, or the record is missing or unreadable.',
  },
  RUN_INTERRUPTED: {
    families: ['run', 'server'],
    description: 'The process running the run stopped (killed, restarted) while the run was not paused: it cannot be resumed without risking a side effect twice.',
  },
  POLICY_DENIED: { families: ['run'], description: 'A policy rule denies the call.' },
  CREDENTIAL_MISSING: {
    families: ['run'],
    description:
      'An upstream MCP server or OpenAPI source needs a per-user credential (`${user:NAME}`) that is not set for the calling principal; `data.name` names it, `data.principal` who, `data.source` where to set it.',
  },

  RATE_LIMITED: { families: ['run'], description: 'The call is over a rate limit; `data.retryAfterMs` says when a slot frees.' },
  ACCESS_DENIED: {
    families: ['run'],
    description: 'A std function refused a path outside the workspace or a URL it may not reach.',
  },
  CAPABILITY_STALE: {
    families: ['run'],
    description: "A capability no longer matches its source (an MCP server's tools changed since the build): rebuild.",
  },
  INTERNAL: {
    families: ['run'],
    description: 'An unexpected failure on the host; a code received from elsewhere that is not one of these is kept as `data.code`.',
  },
  SPACE_NOT_FOUND: { families: ['server'], description: 'No space with the given id is served.' },
  AGENT_NOT_FOUND: {
    families: ['server'],
    description: 'No agent (space) by the name a seed\'s argument gave (`agentId`, `agent_file`, `target_agent`); `spaceId` gives `SPACE_NOT_FOUND`.',
  },
  INVALID_FORMAT: { families: ['server'], description: 'An `inject` format other than `compiled` / `structured`.' },
  TOO_MANY_SESSIONS: {
    families: ['server'],
    description:
      'A session cap was reached: this client\'s (`data.scope: "client"`), the server\'s (`"server"`), or the sandbox\'s session processes, which host one owner\'s sessions each (`"process-share"`: this owner\'s are full and it holds its share; `"processes"`: all host other owners\' sessions); `data.limit` is the cap. No other session was closed for it.',
  },
  STORE_UNAVAILABLE: {
    families: ['run', 'server'],
    description:
      'A shared store (PostgreSQL `DATABASE_URL`, Redis `REDIS_URL`) did not answer: the request or call was refused before acting, and nothing acknowledged was lost; `data.store` names it (`postgres`, `redis`). Retry once it is back (docs/deployment.md).',
  },
  TOO_MANY_TASKS: {
    families: ['server'],
    description:
      'A task-augmented `tools/call` was refused: this client already keeps `data.limit` tasks and none has ended (ended ones are dropped oldest first to make room).',
  },
  SESSION_NOT_FOUND: {
    families: ['server'],
    description: 'No session with the given id for this MCP client (never created, closed, expired or evicted).',
  },
  INVALID_ARGUMENTS: {
    families: ['server'],
    description: 'Tool or prompt arguments are missing or do not match the schema (`data.errors` names each field); or an `agent-spaces` command line names an unknown command or option (`data.closest`: the names meant, if any) or misses a value (exit code 2).',
  },
  TOOL_NOT_FOUND: { families: ['server'], description: 'No tool with the given name.' },
  PROMPT_NOT_FOUND: { families: ['server'], description: 'No prompt with the given name.' },
  MODEL_UNAVAILABLE: {
    families: ['server'],
    description: 'An agent run has no model: the MCP client did not declare `sampling` and no `model` is configured.',
  },
  MODEL_ERROR: {
    families: ['server'],
    description: 'The model failed an agent run: its provider refused or failed the request (`data.status`: 401, 500, …), did not answer in time (`data.reason: "timeout"`), or the client declined sampling.',
  },
  MODEL_LIBRARY_MISSING: {
    families: ['server'],
    description: 'An agent run or `spaceTool()` needs the AI SDK, an optional peer dependency that is not installed; `data.packages` names what to add (`npm install ai @ai-sdk/openai-compatible`).',
  },
  MAX_TURNS: {
    families: ['server'],
    description: 'An agent run reached `maxTurns` model turns without a text answer; the result carries the transcript so far.',
  },
  SKILL_NOT_OWNED: {
    families: ['server'],
    description: "An MCP client tried to replace or delete a skill it did not save (another client's, or the operator's); `data.name` names the skill.",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Every stable error code of agent-spaces (see {@link ERROR_CODES}). */
export type ErrorCode = keyof typeof ERROR_CODES;
/** The codes of one {@link ErrorFamily} (of any family, for a union). */
export type ErrorCodeOf<F extends ErrorFamily> = {
  [C in ErrorCode]: F extends (typeof ERROR_CODES)[C]['families'][number] ? C : never;
}[ErrorCode];
/** Stable codes of errors the compiler reports. */
export type CompileErrorCode = ErrorCodeOf<'compile'>;
/** Stable codes of errors a run reports (to the host, or to agent code as `CapabilityError.code`). */
export type RunErrorCode = ErrorCodeOf<'run'>;
/** Stable codes of errors the MCP server (`agent-spaces mcp serve`) returns as structured tool results. */
export type ServerErrorCode = ErrorCodeOf<'server'>;

/**
 * True when `value` is one of the {@link ERROR_CODES} (of `family`, when given). Check every code received from
 * across a boundary with it: a code that fails becomes a known one, never a cast.
 */
export function isErrorCode<F extends ErrorFamily = ErrorFamily>(value: unknown, family?: F): value is ErrorCodeOf<F> {
  if (typeof value !== 'string' || !Object.hasOwn(ERROR_CODES, value)) return false;
  return family === undefined || (ERROR_CODES[value as ErrorCode].families as readonly ErrorFamily[]).includes(family);
}

/**
 * A {@link WireError} read from untrusted data (another process, another package's promise): undefined unless it has
 * a string `code` and `message`; a code that is not one of `family`'s becomes `INTERNAL`, with the code received kept
 * as `data.code`; only the known fields are kept.
 */
export function readWireError(value: unknown, family: ErrorFamily): WireError | undefined {
  if (!isRecord(value) || typeof value.code !== 'string' || typeof value.message !== 'string') return undefined;
  const code = value.code;
  const data = isRecord(value.data) ? value.data : undefined;
  const known = isErrorCode(code, family);
  return {
    code: known ? code : 'INTERNAL',
    message: value.message,
    ...(typeof value.callId === 'string' ? { callId: value.callId } : {}),
    ...(typeof value.capability === 'string' ? { capability: value.capability } : {}),
    ...(typeof value.function === 'string' ? { function: value.function } : {}),
    ...(known ? (data ? { data } : {}) : { data: { ...data, code } }),
  };
}

/** The codes of `family`, in the order of {@link ERROR_CODES}. */
export function errorCodesOf<F extends ErrorFamily>(family: F): ErrorCodeOf<F>[] {
  return Object.keys(ERROR_CODES).filter((code): code is ErrorCodeOf<F> => isErrorCode(code, family));
}

/** An error as it crosses a boundary (sandbox <-> host, process <-> process): plain data, never a class. */
export interface WireError {
  code: ErrorCode;
  message: string;
  /** The bridge's id of the capability call that failed (as in its events, approval request and audit line). */
  callId?: string;
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

/**
 * Any caught value as a {@link WireError}: the one conversion of an error that leaves its package. An
 * {@link AgentSpacesError} whose code is one of {@link ERROR_CODES} keeps its code, message and data; anything else
 * becomes `fallback` with its message (after `prefix: `, when given), and keeps a string `code` it carried as
 * `data.code`. Never throws.
 * @example
 * toWireError(new Error('port broke'), 'INTERNAL', 'The host port failed')
 * // { code: 'INTERNAL', message: 'The host port failed: port broke' }
 */
export function toWireError(error: unknown, fallback: ErrorCode = 'INTERNAL', prefix?: string): WireError {
  try {
    if (isAgentSpacesError(error) && isErrorCode(error.code)) {
      return { code: error.code, message: error.message, ...(isRecord(error.data) ? { data: error.data } : {}) };
    }
    const text = error instanceof Error ? error.message : String(error);
    const code: unknown = isRecord(error) ? error.code : undefined;
    return {
      code: fallback,
      message: prefix === undefined ? text : `${prefix}: ${text}`,
      ...(typeof code === 'string' ? { data: { code } } : {}),
    };
  } catch {
    return { code: fallback, message: prefix ?? 'An error that cannot be described' };
  }
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
