import { AgentSpacesError, createRedactor } from '@agent-spaces/capabilities';

/**
 * Why an MCP server is unavailable, in `data.reason` of an `MCP_UNAVAILABLE` error:
 * - `spawn_failed`: the command could not be started (`ENOENT`, `EACCES`, a missing `cwd`);
 * - `exited`: the process ended before the handshake finished (`data.exitCode`, `data.signal`, `data.stderr`);
 * - `handshake_timeout`: no `initialize` answer within the handshake timeout;
 * - `auth_refused`: the remote server answered 401 or 403;
 * - `connect_failed`: any other failure to connect (refused connection, bad URL, protocol error);
 * - `server_exited`: a connected server's process exited or its connection closed (in-flight calls fail with it);
 * - `pool_closed`: the client pool was closed;
 * - `connection_limit`: every per-user connection the pool may hold (`maxUserConnections`) is busy.
 */
export type McpFailureReason =
  | 'spawn_failed'
  | 'exited'
  | 'handshake_timeout'
  | 'auth_refused'
  | 'connect_failed'
  | 'server_exited'
  | 'pool_closed'
  | 'connection_limit';

/** How a server process ended, with the last lines it wrote to stderr. */
export interface McpExit {
  exitCode: number | null;
  signal: string | null;
  /** Last ~20 lines of stderr. */
  stderr: string;
}

/** An `MCP_UNAVAILABLE` error whose message names the server and whose `data` holds `{ server, reason, ... }`. */
export function mcpUnavailable(
  server: string,
  reason: McpFailureReason,
  detail: string,
  data: Record<string, unknown> = {},
  cause?: unknown,
): AgentSpacesError {
  return new AgentSpacesError('MCP_UNAVAILABLE', `MCP server "${server}": ${detail}`, { server, reason, ...data }, { cause });
}

/** Describes an exit for a message: `exited with code 3` / `was killed by SIGKILL`, plus the stderr tail. */
export function describeExit(exit: McpExit): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode ?? 'unknown'}`;
  return exit.stderr ? `${how}; stderr:\n${exit.stderr}` : how;
}

/** `error` with every secret (`name → value`, in any form: see `createRedactor`) in its message and string `data` fields replaced. */
export function redactError(error: AgentSpacesError, secrets: ReadonlyMap<string, string>): AgentSpacesError {
  const redactor = createRedactor(secrets);
  if (redactor.names.length === 0) return error;
  const data = error.data && Object.fromEntries(Object.entries(error.data).map(([k, v]) => [k, typeof v === 'string' ? redactor.text(v) : v]));
  return new AgentSpacesError(error.code, redactor.text(error.message), data, { cause: error.cause });
}
