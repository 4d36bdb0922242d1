import { AgentSpacesError } from '@agent-spaces/capabilities';

/**
 * SQLSTATEs that say the server cannot be used now rather than that the statement is wrong: connection exceptions
 * (class 08), shutdown and start-up (57P01–57P03), too many connections or out of resources (class 53).
 */
const UNAVAILABLE_STATES = /^(08|53|57P0[1-3])/;

/**
 * The error a PostgreSQL failure becomes: `STORE_UNAVAILABLE` (data `{ store: 'postgres' }`) when the server could not
 * be reached or went away (refused or lost connection, pool or connect timeout, shutdown), `INTERNAL` for an error the
 * server returned for a statement (a bug of ours); an {@link AgentSpacesError} stays as it is.
 */
export function storeError(error: unknown, isServerError: (error: unknown) => boolean): AgentSpacesError {
  if (error instanceof AgentSpacesError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const state = (error as { code?: unknown } | null)?.code;
  if (isServerError(error) && !(typeof state === 'string' && UNAVAILABLE_STATES.test(state))) {
    return new AgentSpacesError('INTERNAL', `PostgreSQL refused a statement: ${message}`, { store: 'postgres', ...(typeof state === 'string' ? { sqlState: state } : {}) });
  }
  return unavailable(message);
}

/** `STORE_UNAVAILABLE` for PostgreSQL, saying why. */
export function unavailable(reason: string): AgentSpacesError {
  return new AgentSpacesError('STORE_UNAVAILABLE', `PostgreSQL is unavailable: ${reason}`, { store: 'postgres' });
}
