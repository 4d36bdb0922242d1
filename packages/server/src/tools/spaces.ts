import { statSync } from 'node:fs';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { confinedPath, scanAgentFiles, type AgentFileProblem } from '../agent-files.js';
import type { SpaceDefinition } from '../config.js';
import type { Connection } from '../connection.js';
import { AGENT_ID, namedAgent, seedArgument } from './seed.js';
import { compiledPrompt, structuredPrompt } from '../inject.js';
import { toolResult } from '../results.js';
import { READS, outputOf, type ToolSpec } from './types.js';

const FORMATS = ['compiled', 'structured'] as const;

const TEXT = { type: 'string' } as const;
const ARRAY = { type: 'array' } as const;
const NAMES = { type: 'array', items: TEXT } as const;

/** `inject`, `list_spaces` and `get_space` (seed 001). */
export function spaceTools(spaceIds: readonly string[]): ToolSpec[] {
  const spaceId = { type: 'string', description: `Space id (${spaceIds.join(', ')})` } as const;
  return [
    {
      name: 'inject',
      title: 'Space prompt',
      annotations: READS,
      outputSchema: outputOf({ agentId: TEXT, agentName: TEXT }),
      description:
        'Get a space\'s prompt to use as the system message of a fresh chat: "compiled" (default) is one string with the system prompt, ' +
        'enabled skills, how to write code for the space and its capability signatures; "structured" returns those parts separately.',
      inputSchema: {
        type: 'object',
        properties: { spaceId, ...AGENT_ID, format: { type: 'string', description: '"compiled" (default) or "structured"' } },
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { format = 'compiled' } = args as { format?: string };
        const definition = requiredAgent(connection, args, 'inject');
        if (!FORMATS.includes(format as (typeof FORMATS)[number])) {
          throw new AgentSpacesError('INVALID_FORMAT', `Unknown format "${format}" (use ${FORMATS.map((f) => `"${f}"`).join(' or ')})`, {
            format,
            allowed: [...FORMATS],
          });
        }
        const catalog = await connection.catalog(definition);
        const seed = { agentId: definition.id, agentName: definition.name };
        if (format === 'structured') return toolResult({ ...structuredPrompt(definition, catalog), ...seed });
        return toolResult({ spaceId: definition.id, spaceName: definition.name, ...seed, prompt: compiledPrompt(definition, catalog) });
      },
    },
    {
      name: 'list_spaces',
      title: 'List spaces',
      annotations: READS,
      outputSchema: outputOf({ spaces: { type: 'array', items: outputOf({ id: TEXT, name: TEXT }) } }),
      description: 'The spaces this server offers: id, name, description and what each adds (skills, tools, prompts).',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      async handler(_args, { connection }) {
        return toolResult({
          spaces: connection.state.spaces.map((s) => ({
            id: s.id,
            name: s.name,
            ...(s.description ? { description: s.description } : {}),
            ...(s.version ? { version: s.version } : {}),
            enabledSkills: (s.skills ?? []).filter((k) => k.enabled).length,
            tools: (s.tools ?? []).map((t) => t.name),
            prompts: (s.prompts ?? []).map((p) => p.name),
          })),
        });
      },
    },
    {
      name: 'get_space',
      title: 'Space definition',
      annotations: READS,
      outputSchema: outputOf({ id: TEXT, name: TEXT, agentId: TEXT, agentName: TEXT, capabilities: NAMES, tools: ARRAY, prompts: ARRAY }),
      description: 'A space\'s full definition (not compiled): system prompt, every skill with its enabled flag, capabilities, tools and prompts.',
      inputSchema: { type: 'object', properties: { spaceId, ...AGENT_ID }, additionalProperties: false },
      async handler(args, { connection }) {
        const definition = requiredAgent(connection, args, 'get_space');
        const space = await connection.space(definition);
        const { tools, prompts, ...rest } = definition;
        return toolResult({
          ...rest,
          agentId: definition.id,
          agentName: definition.name,
          capabilities: [...space.capabilities],
          tools: (tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters })),
          prompts: prompts ?? [],
        });
      },
    },
    listAgents(),
  ];
}

/** The space `spaceId` or seed 001's `agentId` names (one is required); an unknown `agentId` is `AGENT_NOT_FOUND`. */
function requiredAgent(connection: Connection, args: Record<string, unknown>, tool: string): SpaceDefinition {
  const id = seedArgument(args, tool, 'spaceId', 'agentId', true)!;
  return args.agentId !== undefined ? namedAgent(connection, id) : connection.definition(id);
}

/** One entry of `list_agents`: seed 004's AgentInfo and seed 001's `{ id, name }`. */
function agentInfo(definition: SpaceDefinition, source: 'config' | 'agent_file', file?: string, served = true) {
  return {
    id: definition.id,
    name: definition.name,
    ...(definition.description ? { description: definition.description } : {}),
    source,
    ...(file !== undefined ? { file } : {}),
    served,
    ...(definition.capabilities ? { capabilities: definition.capabilities } : {}),
    tools: (definition.tools ?? []).map((t) => t.name),
  };
}

function listAgents(): ToolSpec {
  return {
    name: 'list_agents',
    title: 'List agents',
    annotations: READS,
    outputSchema: outputOf({ agents: { type: 'array', items: outputOf({ id: TEXT, name: TEXT, source: TEXT, served: { type: 'boolean' } }) }, problems: ARRAY }),
    description:
      'The agents (spaces) this server offers: those of the config and the agent files of its agents folder, as ' +
      '{ agents: [{ id, name, description, source, file, served, capabilities, tools }], problems: [{ file, code, message }] }. ' +
      'With directory (relative to the project), the agent files of that folder instead (use one with agent_file).',
    inputSchema: {
      type: 'object',
      properties: { directory: { type: 'string', minLength: 1, maxLength: 1024, description: 'A folder of agent files, relative to the project' } },
      additionalProperties: false,
    },
    async handler(args, { connection }) {
      const { baseDir, agentFiles, spaces } = connection.state;
      const served = agentFiles?.served ?? [];
      const problems = (list: readonly AgentFileProblem[]) => list.map(({ file, error }) => ({ file, code: error.code, message: error.message }));
      if (args.directory === undefined) {
        const fromFiles = new Set(served.map((a) => a.definition));
        return toolResult({
          agents: [...spaces.filter((s) => !fromFiles.has(s)).map((s) => agentInfo(s, 'config')), ...served.map((a) => agentInfo(a.definition, 'agent_file', a.file))],
          problems: problems(agentFiles?.problems ?? []),
        });
      }
      const dir = confinedPath(baseDir, args.directory, 'directory');
      if (!isFolder(dir)) {
        throw new AgentSpacesError('INVALID_ARGUMENTS', `directory: ${String(args.directory)} is not a folder of the project`, {
          errors: [{ field: 'directory', problem: 'is not a folder of the project' }],
        });
      }
      const scan = scanAgentFiles(baseDir, dir);
      const servedPaths = new Set(served.map((a) => a.path));
      return toolResult({ agents: scan.agents.map((a) => agentInfo(a.definition, 'agent_file', a.file, servedPaths.has(a.path))), problems: problems(scan.problems) });
    },
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
