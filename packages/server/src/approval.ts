import type { SpaceOptions } from '@agent-spaces/sdk';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { HeadlessMode } from './config.js';
import type { ClientLink } from './connection.js';

/** The approval hook `createSpace({ onApproval })` takes. */
export type Approver = NonNullable<SpaceOptions['onApproval']>;

/** What {@link createApprover} needs to know about its MCP connection and tool call. */
export interface ApproverOptions {
  /** What the client can be asked (its connection's `server`). */
  server: ClientLink;
  headlessMode: HeadlessMode;
  /** How long to wait for the person's answer. */
  timeoutMs: number;
  /** The tool call the approvals belong to, so each request travels on that call's stream (Streamable HTTP). */
  relatedRequestId?: RequestId;
}

/**
 * The approver of the runs of one tool call (`RunOptions.onApproval`): it asks the client that made the call, on that
 * call's stream (`relatedRequestId`). When the client declared form elicitation, the person is asked through
 * `elicitation/create` (approved only on `accept` with `approve: true`; decline, cancel, errors and timeouts deny).
 * Otherwise the headless mode decides: `allow` approves, `deny` (the default) throws, so the call fails with
 * `APPROVAL_DENIED` and a message saying why no one was asked, and `wait` leaves the request to be answered from
 * anywhere else (`agent-spaces approvals`, `/approvals`, the console) until it expires. When the request is settled another way (the tool call
 * is cancelled or times out, the run is aborted), the elicitation is withdrawn: the SDK sends `notifications/cancelled`
 * for it, so the client can close its prompt.
 */
export function createApprover(options: ApproverOptions): Approver {
  const { server, headlessMode, timeoutMs } = options;
  return async (request, { signal }) => {
    if (!server.getClientCapabilities()?.elicitation?.form) {
      if (headlessMode === 'allow') return true;
      if (headlessMode === 'wait') return untilSettled(signal);
      throw new Error(
        `${request.capability}.${request.function} needs approval, but this MCP client cannot be asked (it did not declare ` +
          `the elicitation capability, or speaks protocol 2026-07-28) and the server's headless mode is "deny"`,
      );
    }
    const { relatedRequestId } = options;
    try {
      const answer = await server.elicitInput(
        {
          mode: 'form',
          message: request.message,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: { type: 'boolean', title: 'Approve', description: `Allow ${request.capability}.${request.function} to run` },
            },
            required: ['approve'],
          },
        },
        { signal, timeout: timeoutMs, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) },
      );
      return answer.action === 'accept' && answer.content?.approve === true;
    } catch {
      return false;
    }
  };
}

/** Answers nothing: resolves (as a denial nobody sees) only once the request is settled another way. */
function untilSettled(signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}
