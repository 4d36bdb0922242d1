import { toolResult } from '../results.js';
import { READS, type ToolSpec } from '../tools/types.js';
import type { ActionServerAssignments } from './service.js';

const NAME = { type: 'string', minLength: 1, maxLength: 128 } as const;

/**
 * Seed 003's assistant functions as MCP tools: `get_action_servers`, `assign_action_server(agent_name,
 * action_server)` and `remove_action_server(agent_name, action_server?)`. Changing an assignment needs the permission
 * of {@link ActionServerAssignments.authorize} (`FORBIDDEN` otherwise); the agent sees it on its next run.
 */
export function assignmentTools(assignments: ActionServerAssignments): ToolSpec[] {
  return [
    {
      name: 'get_action_servers',
      title: 'List action servers',
      annotations: READS,
      description:
        'The action servers of action_servers.json (name, url, description, the capability agent code imports, whether it is built), ' +
        'which agents (spaces) each is assigned to by agent_configs/*.json, and the problems of config files not applied.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      handler: async () => toolResult(await assignments.available()),
    },
    {
      name: 'assign_action_server',
      title: 'Assign an action server',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      description:
        "Give an agent (a space) an action server's actions: writes agent_configs/<agent>.json; the agent's next run can import the " +
        "server's capability. Needs the server's permission (server.assignment).",
      inputSchema: {
        type: 'object',
        properties: {
          agent_name: { ...NAME, description: 'The agent: a space id (or a name only one space has)' },
          action_server: { ...NAME, description: 'A server name of action_servers.json (see get_action_servers)' },
        },
        required: ['agent_name', 'action_server'],
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { agent_name, action_server } = args as { agent_name: string; action_server: string };
        return toolResult({ success: true, ...(await assignments.assign(agent_name, action_server, connection.principal)) });
      },
    },
    {
      name: 'remove_action_server',
      title: 'Remove an action server',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      description:
        "Take an action server (every one when action_server is left out) away from an agent: rewrites or deletes agent_configs/<agent>.json; " +
        "the agent's next run no longer has its capability. Needs the server's permission (server.assignment).",
      inputSchema: {
        type: 'object',
        properties: {
          agent_name: { ...NAME, description: 'The agent: a space id (or a name only one space has)' },
          action_server: { ...NAME, description: 'The server to remove (default: all of the agent’s)' },
        },
        required: ['agent_name'],
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { agent_name, action_server } = args as { agent_name: string; action_server?: string };
        return toolResult({ success: true, ...(await assignments.remove(agent_name, action_server, connection.principal)) });
      },
    },
  ];
}
