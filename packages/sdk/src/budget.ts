import { payloadBytes, type RunEventInput } from '@agent-spaces/capabilities';

/** Bytes of call params the events of one run keep by default (docs/runtime.md, "Host memory"). */
export const RUN_EVENT_PARAMS_BYTES = 1024 * 1024;

/** What stands in for params past the budget: their size, and a marker saying they were left out. */
export interface TruncatedParams {
  truncated: true;
  bytes: number;
}

/**
 * Keeps the params that a run's `capabilityCall` and `approvalRequired` events hold within `budget` bytes (as they
 * travel, see `payloadBytes`): once it is spent, an event gets {@link TruncatedParams} instead, so a run of many large
 * calls keeps its events small. Returns the event to record.
 */
export function paramsBudget(budget: number = RUN_EVENT_PARAMS_BYTES): (event: RunEventInput) => RunEventInput {
  let left = budget;
  return (event) => {
    if (event.type !== 'capabilityCall' && event.type !== 'approvalRequired') return event;
    // Params reach the host only under the run's maxPayloadBytes, so measuring them whole is bounded.
    const bytes = payloadBytes(event.params, Infinity);
    if (bytes <= left) {
      left -= bytes;
      return event;
    }
    left = 0;
    const truncated: TruncatedParams = { truncated: true, bytes };
    return { ...event, params: truncated };
  };
}
