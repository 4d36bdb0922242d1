import { restoreKept } from '../durable/recovery.js';
import type { Connection } from '../connection.js';
import { privacyOf, type ToolPrivacy } from '../privacy/index.js';
import { runResult, toolResult } from '../results.js';
import type { SessionRecord, ServerSessions } from '../sessions.js';
import { headlessRun } from '../agent/permission.js';
import type { SpaceDefinition } from '../config.js';
import { AGENT_FILE, AGENT_ID, SEED_SESSION_ID, agentOf, sessionIdOf } from './seed.js';
import { READS, RUNS, RUN_OUTPUT, outputOf, spaceIdProperty, type ToolSpec } from './types.js';
import type { JsonSchema } from '@agent-spaces/capabilities';

const sessionId = { sessionId: { type: 'string', minLength: 1, description: 'Id returned by create_session' }, ...SEED_SESSION_ID } as const;
const sessionName = { session_name: { type: 'string', minLength: 1, maxLength: 200, description: 'A name for the session (seed 004), shown by get_session_info' } } as const;
const codeProperty = { code: { type: 'string', description: 'TypeScript to run in the session' } } as const;

const text = { type: 'string' } as const;
const time = { type: 'string', description: 'ISO 8601 date and time' } as const;
/** What create_session, get_session_info and list_sessions say of a session ({@link describe}). */
const SESSION = outputOf(
  {
    sessionId: text,
    spaceId: text,
    createdAt: time,
    lastUsedAt: time,
    runs: { type: 'integer', minimum: 0 },
    expiresAt: time,
    conversation: { type: 'boolean' },
    session_id: text,
    agent: text,
    agent_file: text,
    session_name: text,
    message_count: { type: 'integer', minimum: 0 },
    created: time,
  },
  ['sessionId', 'spaceId', 'createdAt', 'lastUsedAt', 'runs', 'expiresAt', 'conversation', 'session_id', 'agent', 'message_count', 'created'],
);
/** Changes only the server's own state (a session), reaching nothing outside. */
const CHANGES_SESSIONS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const ANY_ARRAY: JsonSchema = { type: 'array' };
const HISTORY = outputOf({ sessionId: text, runs: { type: 'integer', minimum: 0 }, history: ANY_ARRAY });
/** `close_session`: its sandbox state is gone for good; closing it again changes nothing more. */
const CLOSES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** `create_session`, `send_code`, `get_session_info`, `list_sessions`, `get_session_history` and `close_session`. */
export function sessionTools(spaceIds: readonly string[]): ToolSpec[] {
  return [
    createSession(spaceIds),
    {
      name: 'send_code',
      title: 'Run TypeScript in a session',
      annotations: RUNS,
      outputSchema: outputOf({ sessionId: text, ...RUN_OUTPUT }),
      description:
        'Run TypeScript in a session (as execute, but top-level variables, functions and classes of earlier calls are still ' +
        'defined, and the code is typechecked against them; imports are not kept: import again). ' +
        'Returns { sessionId, result, logs, events, metadata }.',
      inputSchema: { type: 'object', properties: { ...sessionId, ...codeProperty }, required: ['code'], additionalProperties: false },
      execution: { taskSupport: 'optional' },
      async handler(args, { connection, runOptions }) {
        const id = sessionIdOf(args, 'send_code');
        const { code } = args as { code: string };
        await restoreKept(connection, id);
        const privacy = await sessionPrivacy(connection, id);
        return privacy.answer('send_code', async () => {
          const source = privacy.code(code);
          const result = await connection.state.sessions.run(connection.id, id, source, (session) => session.run(source, privacy.runOptions(runOptions)));
          return runResult(result, { sessionId: id });
        });
      },
    },
    {
      name: 'get_session_info',
      title: 'Session info',
      annotations: READS,
      outputSchema: SESSION,
      description:
        "A session's space, creation and last-use times, number of runs and when it expires if left idle; with seed 004's " +
        'session_id, agent, message_count and created.',
      inputSchema: { type: 'object', properties: { ...sessionId }, additionalProperties: false },
      async handler(args, { connection }) {
        const { sessions } = connection.state;
        return toolResult(describe(sessions.get(connection.id, sessionIdOf(args, 'get_session_info')), sessions));
      },
    },
    {
      name: 'list_sessions',
      title: 'List sessions',
      annotations: READS,
      outputSchema: outputOf({ sessions: { type: 'array', items: SESSION } }),
      description: 'This client\'s open sessions, most recently used first.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      async handler(_args, { connection }) {
        const { sessions } = connection.state;
        return toolResult({ sessions: sessions.list(connection.id).map((r) => describe(r, sessions)) });
      },
    },
    {
      name: 'get_session_history',
      title: 'Session history',
      annotations: READS,
      outputSchema: HISTORY,
      description:
        'The last entries of a session, oldest first: its runs (code, result or error, duration and capability calls) and, in a ' +
        'conversation started by send_message, the messages ({ role, text }) between them.',
      inputSchema: {
        type: 'object',
        properties: { ...sessionId, limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most entries to return (default 20)' } },
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const id = sessionIdOf(args, 'get_session_history');
        const { limit = 20 } = args as { limit?: number };
        const record = connection.state.sessions.get(connection.id, id);
        const privacy = await sessionPrivacy(connection, id);
        return privacy.answer('get_session_history', async () => toolResult({ sessionId: id, runs: record.runs, history: record.history.slice(-limit) }));
      },
    },
    closeSession(),
  ];
}

/** The privacy of session `id`'s space (its record's own definition for an agent file outside the served spaces). */
async function sessionPrivacy(connection: Connection, id: string): Promise<ToolPrivacy> {
  const record = connection.state.sessions.get(connection.id, id);
  return privacyOf(connection, record.definition ?? connection.definition(record.spaceId));
}

/** `close_session`. */
function closeSession(): ToolSpec {
  return {
    name: 'close_session',
    title: 'Close a session',
    annotations: CLOSES,
    outputSchema: outputOf({ sessionId: text, session_id: text, closed: { type: 'boolean' }, success: { type: 'boolean' } }),
    description: 'Close a session and free its sandbox context. Returns { sessionId, closed: true, success: true }.',
    inputSchema: { type: 'object', properties: { ...sessionId }, additionalProperties: false },
    async handler(args, { connection }) {
      const id = sessionIdOf(args, 'close_session');
      await connection.state.sessions.close(connection.id, id);
      return toolResult({ sessionId: id, session_id: id, closed: true, success: true });
    },
  };
}

/** `create_session`: a code session, or (with `agent_file`) an agent conversation of seed 004. */
function createSession(spaceIds: readonly string[]): ToolSpec {
  return {
    name: 'create_session',
    title: 'Create a session',
    annotations: CHANGES_SESSIONS,
    outputSchema: SESSION,
    description:
      'Start a session: a sandbox context whose top-level declarations persist between send_code calls. Sessions are private to this client ' +
      'and end after an idle timeout; past a session limit this fails with TOO_MANY_SESSIONS (close one with close_session). ' +
      'With agent_file (seed 004) it starts an agent conversation instead: talk to it with send_message.',
    inputSchema: { type: 'object', properties: { ...spaceIdProperty(spaceIds), ...AGENT_ID, ...AGENT_FILE, ...sessionName }, additionalProperties: false },
    async handler(args, { connection }) {
      const definition = agentOf(connection, args, 'create_session');
      const conversation = args.agent_file !== undefined;
      const space = await connection.space(definition, conversation ? headlessRun(definition.toolPermission).variant : undefined);
      const record = await connection.state.sessions.add(connection.id, definition.id, () => space.createSession(), connection.principal.id);
      if (typeof args.session_name === 'string') record.name = args.session_name;
      if (conversation) startConversation(record, connection.state.spaces, definition, String(args.agent_file));
      return toolResult(describe(record, connection.state.sessions));
    },
  };
}

/**
 * An agent conversation in `record` (created by `create_session` with `agent_file`) with `definition`'s agent, which
 * the record keeps when it is not one of the served `spaces`.
 */
export function startConversation(record: SessionRecord, spaces: readonly SpaceDefinition[], definition: SpaceDefinition, agentFile?: string): void {
  record.conversation = [];
  if (agentFile !== undefined) record.agentFile = agentFile;
  if (!spaces.includes(definition)) record.definition = definition;
}

/** What `create_session`, `get_session_info` and `list_sessions` say of a session: ours, then seed 004's names. */
function describe(record: SessionRecord, sessions: ServerSessions) {
  const created = record.createdAt.toISOString();
  return {
    sessionId: record.id,
    spaceId: record.spaceId,
    createdAt: created,
    lastUsedAt: record.lastUsedAt.toISOString(),
    runs: record.runs,
    expiresAt: sessions.expiresAt(record).toISOString(),
    conversation: record.conversation !== undefined,
    session_id: record.id,
    agent: record.definition?.name ?? record.spaceId,
    ...(record.agentFile !== undefined ? { agent_file: record.agentFile } : {}),
    ...(record.name !== undefined ? { session_name: record.name } : {}),
    message_count: record.messageCount ?? 0,
    created,
  };
}
