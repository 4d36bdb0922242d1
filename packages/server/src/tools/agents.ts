import { AgentSpacesError, payloadBytes } from '@agent-spaces/capabilities';
import { headlessRun } from '../agent/permission.js';
import { DEFAULT_MAX_TURNS } from '@agent-spaces/sdk';
import { MAX_AGENT_FILE_BYTES, adHocDefinition, parseAgentDefinition } from '../agent-files.js';
import type { SpaceDefinition } from '../config.js';
import type { Connection } from '../connection.js';
import { toolResult } from '../results.js';
import type { SessionRecord } from '../sessions.js';
import { AGENT_OUTPUT, agentResult, runHeadless } from './prompt.js';
import { AGENT_FILE, AGENT_ID, SEED_SESSION_ID, agentOf, namedAgent, seedArgument, sessionIdOf } from './seed.js';
import { startConversation } from './sessions.js';
import { RUNS, outputOf, spaceIdProperty, type ToolContext, type ToolSpec } from './types.js';

const message = { message: { type: 'string', minLength: 1, description: 'What to ask the agent' } } as const;
const maxTurns = { maxTurns: { type: 'integer', minimum: 1, maximum: 100, description: `Most model turns (default ${DEFAULT_MAX_TURNS})` } } as const;
const TEXT = { type: 'string' } as const;
const RESULT =
  'Returns the answer as text, and { response, events (tool_call, tool_response, code_run with its capability calls, agent_message), ' +
  'metadata: { duration_ms, turns, tool_calls, code_runs, capability_calls, tokens_used, tokens_estimated? } }.';

/** Conversations waiting for the one before them, per session: the messages of one session are answered in order. */
const turns = new WeakMap<SessionRecord, Promise<unknown>>();

/** Seed 004's agent tools: `invoke_agent`, `send_message`, `invoke_with_config` and `transfer_session`. */
export function agentTools(spaceIds: readonly string[]): ToolSpec[] {
  return [invokeAgent(spaceIds), sendMessage(spaceIds), invokeWithConfig(), transferSession()];
}

function invokeAgent(spaceIds: readonly string[]): ToolSpec {
  return {
    name: 'invoke_agent',
    title: 'Ask an agent',
    annotations: RUNS,
    outputSchema: AGENT_OUTPUT,
    description:
      'Delegate a task to a headless agent of the space (or of agent_file): it answers by writing and running code in the space (only ' +
      `the functions its tool permission allows), so the intermediate data never reaches you. ${RESULT}`,
    inputSchema: { type: 'object', properties: { ...message, ...spaceIdProperty(spaceIds), ...AGENT_ID, ...AGENT_FILE, ...maxTurns }, required: ['message'], additionalProperties: false },
    execution: { taskSupport: 'optional' },
    async handler(args, context) {
      const { message: text, maxTurns: turnLimit = DEFAULT_MAX_TURNS } = args as { message: string; maxTurns?: number };
      const space = agentOf(context.connection, args, 'invoke_agent');
      return agentResult(await runHeadless(space, [{ role: 'user', text }], turnLimit, context));
    },
  };
}

function sendMessage(spaceIds: readonly string[]): ToolSpec {
  return {
    name: 'send_message',
    title: 'Talk to an agent',
    annotations: RUNS,
    outputSchema: outputOf({ sessionId: TEXT, session_id: TEXT, ...AGENT_OUTPUT.properties }),
    description:
      'Talk to a headless agent of the space in a conversation: without sessionId it starts one (a session: the conversation and the ' +
      "agent's sandbox state, whose top-level declarations persist); pass the returned sessionId (or session_id) to go on, or start one " +
      `with create_session and agent_file. get_session_history shows its messages and code runs, close_session ends it. ${RESULT} ` +
      'The result also carries sessionId and session_id.',
    inputSchema: {
      type: 'object',
      properties: {
        ...message,
        sessionId: { type: 'string', minLength: 1, description: 'A conversation started by send_message or create_session with agent_file (omit to start one)' },
        ...SEED_SESSION_ID,
        ...spaceIdProperty(spaceIds),
        ...AGENT_ID,
        ...AGENT_FILE,
        ...maxTurns,
      },
      required: ['message'],
      additionalProperties: false,
    },
    async handler(args, context) {
      const { message: text, maxTurns: turnLimit = DEFAULT_MAX_TURNS } = args as { message: string; maxTurns?: number };
      const conversation = await conversationOf(context.connection, args);
      const { connection } = context;
      const { sessions } = connection.state;
      const owner = connection.id;
      const answer = async () => {
        const space = conversation.definition ?? connection.definition(conversation.spaceId);
        sessions.addMessage(conversation, 'user', text);
        const session = { run: (code: string, options: Parameters<typeof conversation.session.run>[1]) => sessions.run(owner, conversation.id, code, (s) => s.run(code, options)) };
        const report = await runHeadless(space, [...(conversation.conversation ?? []), { role: 'user', text }], turnLimit, context, session);
        conversation.conversation = report.messages;
        if (report.ok) sessions.addMessage(conversation, 'assistant', report.response);
        return agentResult(report, { sessionId: conversation.id, session_id: conversation.id });
      };
      return inTurn(conversation, answer);
    },
  };
}

/** Runs `step` after the conversation's earlier turns (and transfers). */
function inTurn<T>(record: SessionRecord, step: () => Promise<T>): Promise<T> {
  const result = (turns.get(record) ?? Promise.resolve()).then(step);
  turns.set(record, result.catch(() => undefined));
  return result;
}

/** The conversation `send_message` continues (its session id) or starts (in the agent its arguments name). */
async function conversationOf(connection: Connection, args: Record<string, unknown>): Promise<SessionRecord> {
  const { sessions } = connection.state;
  const sessionId = seedArgument(args, 'send_message', 'sessionId', 'session_id');
  if (sessionId === undefined) {
    const definition = agentOf(connection, args, 'send_message');
    const client = await connection.space(definition, headlessRun(definition.toolPermission).variant);
    const record = await sessions.add(connection.id, definition.id, () => client.createSession());
    startConversation(record, connection.state.spaces, definition, typeof args.agent_file === 'string' ? args.agent_file : undefined);
    return record;
  }
  const record = sessions.get(connection.id, sessionId);
  if (!record.conversation) {
    throw new AgentSpacesError(
      'INVALID_ARGUMENTS',
      `sessionId: session ${sessionId} was started by create_session for your own code; start a conversation with send_message without sessionId (or create_session with agent_file)`,
      { errors: [{ field: 'sessionId', problem: 'is not a conversation' }] },
    );
  }
  const named = seedArgument(args, 'send_message', 'spaceId', 'agentId');
  if ((named !== undefined && named !== record.spaceId) || args.agent_file !== undefined) {
    const field = args.agent_file !== undefined ? 'agent_file' : 'spaceId';
    throw new AgentSpacesError('INVALID_ARGUMENTS', `${field}: session ${sessionId} belongs to space "${record.spaceId}" (transfer_session hands it to another)`, {
      errors: [{ field, problem: `is not the session's space "${record.spaceId}"` }],
    });
  }
  return record;
}

/** Keys of an inline agent definition that do not apply to a one-shot run, or would widen what the caller may do. */
const INLINE_REFUSED: Record<string, string> = {
  model: 'is not allowed inline: the run uses the model this server chooses for you (sampling, the server\'s or a served space\'s)',
  tools: 'does not apply to a one-shot run (define tools in the config or an agent file)',
  prompts: 'does not apply to a one-shot run (define prompts in the config or an agent file)',
};

function invokeWithConfig(): ToolSpec {
  return {
    name: 'invoke_with_config',
    title: 'Run an inline agent',
    annotations: RUNS,
    outputSchema: AGENT_OUTPUT,
    description:
      'One-shot run of an inline agent (seed 004): config is one agent definition as in an agent file (name, description, systemPrompt, ' +
      `skills, capabilities (built ones), toolPermission; at most ${MAX_AGENT_FILE_BYTES / 1024} KiB; no model, tools or prompts), checked ` +
      `like a file; the server's policies, approvals and limits apply as to any run. ${RESULT}`,
    inputSchema: {
      type: 'object',
      properties: { config: { type: 'object', description: 'One agent definition (the keys of a spaces[] entry of the config)' }, ...message, ...maxTurns },
      required: ['config', 'message'],
      additionalProperties: false,
    },
    execution: { taskSupport: 'optional' },
    async handler(args, context) {
      const { message: text, maxTurns: turnLimit = DEFAULT_MAX_TURNS } = args as { message: string; maxTurns?: number };
      const space = await inlineAgent(args.config, context);
      return agentResult(await runHeadless(space, [{ role: 'user', text }], turnLimit, context));
    },
  };
}

/**
 * The inline definition of `invoke_with_config`, checked like an agent file (errors name `config` and the field), within
 * the size bound and without {@link INLINE_REFUSED} keys; its capabilities must be built ones (`CAPABILITY_NOT_FOUND`).
 */
async function inlineAgent(config: unknown, context: ToolContext): Promise<SpaceDefinition> {
  const bytes = payloadBytes(config, MAX_AGENT_FILE_BYTES + 1);
  const invalid = (field: string, problem: string): never => {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `Invalid arguments for invoke_with_config: "${field}" ${problem}`, { errors: [{ field, problem }] });
  };
  if (bytes > MAX_AGENT_FILE_BYTES) invalid('config', `is larger than ${MAX_AGENT_FILE_BYTES} bytes`);
  const refused = Object.keys(config as object).find((key) => key in INLINE_REFUSED);
  if (refused) invalid(`config.${refused}`, INLINE_REFUSED[refused]!);
  const definition = adHocDefinition(parseAgentDefinition(config, 'config', 'inline'));
  // Creating its space checks the capabilities against the build, as for any space.
  await context.connection.space(definition, headlessRun(definition.toolPermission).variant);
  return definition;
}

function transferSession(): ToolSpec {
  return {
    name: 'transfer_session',
    title: 'Hand a conversation to another agent',
    // The old agent's sandbox declarations are dropped; the conversation itself stays on the server.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: outputOf({ success: { type: 'boolean' }, sessionId: TEXT, session_id: TEXT, agent: TEXT, spaceId: TEXT, previousSpaceId: TEXT }),
    description:
      "Hand an agent conversation to another agent (a space id, or an agent file's path relative to the project), keeping its messages: " +
      "the target's system prompt, capabilities and tool permission apply from the next message on. The old agent's sandbox " +
      'declarations do not carry over. Returns { success: true, sessionId, session_id, agent }.',
    inputSchema: {
      type: 'object',
      properties: {
        sessionId: { type: 'string', minLength: 1, description: 'The conversation to hand over' },
        ...SEED_SESSION_ID,
        target_agent: { type: 'string', minLength: 1, maxLength: 1024, description: 'The agent to hand it to: a space id, or an agent file path' },
      },
      required: ['target_agent'],
      additionalProperties: false,
    },
    async handler(args, { connection }) {
      const id = sessionIdOf(args, 'transfer_session');
      const { sessions } = connection.state;
      const record = sessions.get(connection.id, id);
      if (!record.conversation) {
        throw new AgentSpacesError('INVALID_ARGUMENTS', `session_id: session ${id} is a code session (create_session without agent_file), not an agent conversation`, {
          errors: [{ field: 'session_id', problem: 'is not a conversation' }],
        });
      }
      const target = namedAgent(connection, args.target_agent as string, 'target_agent');
      const from = record.spaceId;
      await inTurn(record, async () => {
        const client = await connection.space(target, headlessRun(target.toolPermission).variant);
        await sessions.transfer(connection.id, id, target.id, () => client.createSession(), connection.state.spaces.includes(target) ? undefined : target);
        if (/\.(json|ya?ml)$/i.test(args.target_agent as string)) record.agentFile = args.target_agent as string;
        else delete record.agentFile;
      });
      return toolResult({ success: true, sessionId: id, session_id: id, agent: target.name, spaceId: target.id, previousSpaceId: from });
    },
  };
}
