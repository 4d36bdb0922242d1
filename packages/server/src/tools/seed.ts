import { extname } from 'node:path';
import { AgentSpacesError, isAgentSpacesError, type JsonSchema } from '@agent-spaces/capabilities';
import { adHocDefinition, confinedPath, projectRelative, readAgentFile } from '../agent-files.js';
import type { SpaceDefinition } from '../config.js';
import type { Connection } from '../connection.js';

/** Seed 004's `session_id`, accepted beside `sessionId`. */
export const SEED_SESSION_ID: Record<string, JsonSchema> = {
  session_id: { type: 'string', minLength: 1, description: 'Seed 004 spelling of sessionId (give one of the two)' },
};

/** Seed 004's `agent_file`: an agent file by its path relative to the project. */
export const AGENT_FILE: Record<string, JsonSchema> = {
  agent_file: {
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description: 'An agent file (JSON or YAML, one space) by its path relative to the project, e.g. "agent-files/code-reviewer.yaml"; instead of spaceId',
  },
};

/** Seed 001's `agentId`, accepted beside `spaceId`. */
export const AGENT_ID: Record<string, JsonSchema> = {
  agentId: { type: 'string', minLength: 1, description: 'Seed 001 spelling of spaceId (give one of the two)' },
};

/**
 * The value of the argument `ours` or of its seed spelling `seed` (they name the same thing); throws
 * `INVALID_ARGUMENTS` naming both when both are given with different values, and when `required` and neither is.
 */
export function seedArgument(args: Record<string, unknown>, tool: string, ours: string, seed: string, required = false): string | undefined {
  const a = args[ours] as string | undefined;
  const b = args[seed] as string | undefined;
  if (a !== undefined && b !== undefined && a !== b) {
    const problem = `and "${seed}" name the same thing with different values: give one`;
    throw new AgentSpacesError('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: "${ours}" ${problem}`, { errors: [{ field: ours, problem }, { field: seed, problem: `differs from "${ours}"` }] });
  }
  const value = a ?? b;
  if (required && value === undefined) {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: "${ours}" is required (or "${seed}")`, {
      errors: [{ field: ours, problem: 'is required' }],
    });
  }
  return value;
}

/** The `sessionId` (or `session_id`) a session tool requires. */
export function sessionIdOf(args: Record<string, unknown>, tool: string): string {
  return seedArgument(args, tool, 'sessionId', 'session_id', true)!;
}

/**
 * The agent (space) a call names: `agent_file` (a path relative to the project), or `spaceId` / `agentId` (the same
 * thing), or the default space. Giving a file and an id is `INVALID_ARGUMENTS`; an unknown `agentId` or a missing file
 * is `AGENT_NOT_FOUND`, an unknown `spaceId` `SPACE_NOT_FOUND`.
 */
export function agentOf(connection: Connection, args: Record<string, unknown>, tool: string): SpaceDefinition {
  const spaceId = seedArgument(args, tool, 'spaceId', 'agentId');
  if (args.agent_file !== undefined) {
    if (spaceId !== undefined) {
      const problem = 'names an agent, and so does spaceId/agentId: give one';
      throw new AgentSpacesError('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: "agent_file" ${problem}`, { errors: [{ field: 'agent_file', problem }] });
    }
    return agentFromFile(connection, args.agent_file, 'agent_file');
  }
  return args.agentId !== undefined ? namedAgent(connection, spaceId!) : connection.definition(spaceId);
}

/**
 * The agent `name` names (`transfer_session`'s `target_agent`, seed 001's `agentId`): a served space's id, else — for a
 * name ending in `.json`, `.yaml` or `.yml` — an agent file by its path relative to the project; `AGENT_NOT_FOUND` else.
 */
export function namedAgent(connection: Connection, name: string, field = 'agentId'): SpaceDefinition {
  const found = connection.state.spaces.find((s) => s.id === name);
  if (found) return found;
  if (['.json', '.yaml', '.yml'].includes(extname(name).toLowerCase())) return agentFromFile(connection, name, field);
  const known = connection.state.spaces.map((s) => s.id);
  throw new AgentSpacesError('AGENT_NOT_FOUND', `No agent "${name}" (agents: ${known.join(', ')}; or an agent file by its path relative to the project)`, {
    [field]: name,
    available: known,
  });
}

/**
 * The agent of the agent file `value` (argument `field`): the served space when the file is one the server serves
 * (its agents folder, hot-reloaded), else the file read now as a space of its own ({@link adHocDefinition}).
 */
function agentFromFile(connection: Connection, value: unknown, field: string): SpaceDefinition {
  const { baseDir, agentFiles } = connection.state;
  const path = confinedPath(baseDir, value, field);
  const served = agentFiles?.served.find((a) => a.path === path);
  if (served) return connection.definition(served.definition.id);
  const problem = agentFiles?.problems.find((p) => p.file === projectRelative(baseDir, path));
  if (problem) throw problem.error;
  try {
    return adHocDefinition(readAgentFile(path, projectRelative(baseDir, path)));
  } catch (error) {
    if (isAgentSpacesError(error) && error.code === 'AGENT_NOT_FOUND') {
      throw new AgentSpacesError('AGENT_NOT_FOUND', `${field}: no agent file ${String(value)} in the project (paths are relative to ${baseDir})`, {
        [field]: value,
      });
    }
    throw error;
  }
}
