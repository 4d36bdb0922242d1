import { restoreKept } from '../durable/recovery.js';
import { runResult, toolResult } from '../results.js';
import type { SessionRecord, ServerSessions } from '../sessions.js';
import { spaceIdProperty, type ToolSpec } from './types.js';

const sessionId = { sessionId: { type: 'string', minLength: 1, description: 'Id returned by create_session' } } as const;
const codeProperty = { code: { type: 'string', description: 'TypeScript to run in the session' } } as const;

/** `create_session`, `send_code`, `get_session_info`, `list_sessions`, `get_session_history` and `close_session`. */
export function sessionTools(spaceIds: readonly string[]): ToolSpec[] {
  return [
    {
      name: 'create_session',
      description:
        'Start a session: a sandbox context whose top-level declarations persist between send_code calls. Sessions are private to this client ' +
        'and end after an idle timeout; past a session limit this fails with TOO_MANY_SESSIONS (close one with close_session).',
      inputSchema: { type: 'object', properties: { ...spaceIdProperty(spaceIds) }, additionalProperties: false },
      async handler(args, { connection }) {
        const definition = connection.definition((args as { spaceId?: string }).spaceId);
        const space = await connection.space(definition);
        const record = await connection.state.sessions.add(connection.id, definition.id, () => space.createSession(), connection.principal.id);
        return toolResult(describe(record, connection.state.sessions));
      },
    },
    {
      name: 'send_code',
      description:
        'Run TypeScript in a session (as execute, but top-level variables, functions and classes of earlier calls are still ' +
        'defined, and the code is typechecked against them; imports are not kept: import again). ' +
        'Returns { sessionId, result, logs, events, metadata }.',
      inputSchema: { type: 'object', properties: { ...sessionId, ...codeProperty }, required: ['sessionId', 'code'], additionalProperties: false },
      execution: { taskSupport: 'optional' },
      async handler(args, { connection, runOptions }) {
        const { sessionId: id, code } = args as { sessionId: string; code: string };
        await restoreKept(connection, id);
        const result = await connection.state.sessions.run(connection.id, id, code, (session) => session.run(code, runOptions));
        return runResult(result, { sessionId: id });
      },
    },
    {
      name: 'get_session_info',
      description: 'A session\'s space, creation and last-use times, number of runs and when it expires if left idle.',
      inputSchema: { type: 'object', properties: { ...sessionId }, required: ['sessionId'], additionalProperties: false },
      async handler(args, { connection }) {
        const { sessions } = connection.state;
        return toolResult(describe(sessions.get(connection.id, (args as { sessionId: string }).sessionId), sessions));
      },
    },
    {
      name: 'list_sessions',
      description: 'This client\'s open sessions, most recently used first.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      async handler(_args, { connection }) {
        const { sessions } = connection.state;
        return toolResult({ sessions: sessions.list(connection.id).map((r) => describe(r, sessions)) });
      },
    },
    {
      name: 'get_session_history',
      description:
        'The last entries of a session, oldest first: its runs (code, result or error, duration and capability calls) and, in a ' +
        'conversation started by send_message, the messages ({ role, text }) between them.',
      inputSchema: {
        type: 'object',
        properties: { ...sessionId, limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most entries to return (default 20)' } },
        required: ['sessionId'],
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { sessionId: id, limit = 20 } = args as { sessionId: string; limit?: number };
        const record = connection.state.sessions.get(connection.id, id);
        return toolResult({ sessionId: id, runs: record.runs, history: record.history.slice(-limit) });
      },
    },
    {
      name: 'close_session',
      description: 'Close a session and free its sandbox context.',
      inputSchema: { type: 'object', properties: { ...sessionId }, required: ['sessionId'], additionalProperties: false },
      async handler(args, { connection }) {
        const { sessionId: id } = args as { sessionId: string };
        await connection.state.sessions.close(connection.id, id);
        return toolResult({ sessionId: id, closed: true });
      },
    },
  ];
}

function describe(record: SessionRecord, sessions: ServerSessions) {
  return {
    sessionId: record.id,
    spaceId: record.spaceId,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt.toISOString(),
    runs: record.runs,
    expiresAt: sessions.expiresAt(record).toISOString(),
  };
}
