import type { SpaceOptions } from '@agent-spaces/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { HeadlessMode } from './config.js';

/** The approval hook `createSpace({ onApproval })` takes. */
export type Approver = NonNullable<SpaceOptions['onApproval']>;

/** What {@link createApprover} needs to know about its MCP connection. */
export interface ApproverOptions {
  server: Server;
  headlessMode: HeadlessMode;
  /** How long to wait for the person's answer. */
  timeoutMs: number;
  /** The tool call the approval belongs to, so the request travels on that call's stream (Streamable HTTP). */
  currentRequest(): RequestId | undefined;
}

/**
 * The approver of one MCP connection. When the client declared form elicitation, the person is asked through
 * `elicitation/create` (approved only on `accept` with `approve: true`; decline, cancel, errors and timeouts deny).
 * Otherwise the headless mode decides: `allow` approves, `deny` (the default) throws, so the call fails with
 * `APPROVAL_DENIED` and a message saying why no one was asked.
 */
export function createApprover(options: ApproverOptions): Approver {
  const { server, headlessMode, timeoutMs } = options;
  return async (request) => {
    if (!server.getClientCapabilities()?.elicitation?.form) {
      if (headlessMode === 'allow') return true;
      throw new Error(
        `${request.capability}.${request.function} needs approval, but this MCP client cannot be asked (it did not declare ` +
          `the elicitation capability) and the server's headless mode is "deny"`,
      );
    }
    const related = options.currentRequest();
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
        { timeout: timeoutMs, ...(related !== undefined ? { relatedRequestId: related } : {}) },
      );
      return answer.action === 'accept' && answer.content?.approve === true;
    } catch {
      return false;
    }
  };
}
