import { AgentSpacesError } from '@agent-spaces/capabilities';
import { headlessRun } from '../agent/permission.js';
import { DEFAULT_MAX_TURNS } from '@agent-spaces/sdk';
import type { SessionRecord } from '../sessions.js';
import { agentResult, runHeadless } from './prompt.js';
import { spaceIdProperty, type ToolSpec } from './types.js';

const message = { message: { type: 'string', minLength: 1, description: 'What to ask the agent' } } as const;
const maxTurns = { maxTurns: { type: 'integer', minimum: 1, maximum: 100, description: `Most model turns (default ${DEFAULT_MAX_TURNS})` } } as const;
const RESULT = 'Returns the answer as text, and { response, events (its code runs with their capability calls), metadata: { duration_ms, turns, code_runs, capability_calls, tokens_used } }.';

/** Conversations waiting for the one before them, per session: the messages of one session are answered in order. */
const turns = new WeakMap<SessionRecord, Promise<unknown>>();

/** `invoke_agent` (one-shot) and `send_message` (a conversation kept in a session): seed 004's agent tools. */
export function agentTools(spaceIds: readonly string[]): ToolSpec[] {
  return [
    {
      name: 'invoke_agent',
      description:
        'Delegate a task to a headless agent of the space: it answers by writing and running code in the space (only the functions its ' +
        `tool permission allows), so the intermediate data never reaches you. ${RESULT}`,
      inputSchema: { type: 'object', properties: { ...message, ...spaceIdProperty(spaceIds), ...maxTurns }, required: ['message'], additionalProperties: false },
      execution: { taskSupport: 'optional' },
      async handler(args, context) {
        const { message: text, spaceId, maxTurns: turnLimit = DEFAULT_MAX_TURNS } = args as { message: string; spaceId?: string; maxTurns?: number };
        const space = context.connection.definition(spaceId);
        return agentResult(await runHeadless(space, [{ role: 'user', text }], turnLimit, context));
      },
    },
    {
      name: 'send_message',
      description:
        'Talk to a headless agent of the space in a conversation: without sessionId it starts one (a session: the conversation and the ' +
        "agent's sandbox state, whose top-level declarations persist); pass the returned sessionId to go on. get_session_history shows " +
        `its messages and code runs, close_session ends it. ${RESULT} The result also carries sessionId.`,
      inputSchema: {
        type: 'object',
        properties: {
          ...message,
          sessionId: { type: 'string', minLength: 1, description: 'A conversation started by send_message (omit to start one)' },
          ...spaceIdProperty(spaceIds),
          ...maxTurns,
        },
        required: ['message'],
        additionalProperties: false,
      },
      async handler(args, context) {
        const { message: text, sessionId, spaceId, maxTurns: turnLimit = DEFAULT_MAX_TURNS } = args as {
          message: string;
          sessionId?: string;
          spaceId?: string;
          maxTurns?: number;
        };
        const { connection } = context;
        const { sessions } = connection.state;
        let record: SessionRecord;
        if (sessionId === undefined) {
          const definition = connection.definition(spaceId);
          const client = await connection.space(definition, headlessRun(definition.toolPermission).variant);
          record = await sessions.add(connection.id, definition.id, () => client.createSession());
          record.conversation = [];
        } else {
          record = sessions.get(connection.id, sessionId);
          if (!record.conversation) {
            throw new AgentSpacesError(
              'INVALID_ARGUMENTS',
              `sessionId: session ${sessionId} was started by create_session for your own code; start a conversation with send_message without sessionId`,
              { errors: [{ field: 'sessionId', problem: 'is not a conversation' }] },
            );
          }
          if (spaceId !== undefined && spaceId !== record.spaceId) {
            throw new AgentSpacesError('INVALID_ARGUMENTS', `spaceId: session ${sessionId} belongs to space "${record.spaceId}"`, {
              errors: [{ field: 'spaceId', problem: `is not the session's space "${record.spaceId}"` }],
            });
          }
        }
        const conversation = record;
        const owner = connection.id;
        const answer = async () => {
          const space = connection.definition(conversation.spaceId);
          sessions.addMessage(conversation, 'user', text);
          const session = { run: (code: string, options: Parameters<typeof conversation.session.run>[1]) => sessions.run(owner, conversation.id, code, (s) => s.run(code, options)) };
          const report = await runHeadless(space, [...(conversation.conversation ?? []), { role: 'user', text }], turnLimit, context, session);
          conversation.conversation = report.messages;
          if (report.ok) sessions.addMessage(conversation, 'assistant', report.response);
          return agentResult(report, { sessionId: conversation.id });
        };
        const result = (turns.get(conversation) ?? Promise.resolve()).then(answer);
        turns.set(conversation, result.catch(() => undefined));
        return result;
      },
    },
  ];
}
