import { AgentSpacesError } from '@agent-spaces/capabilities';
import { compiledPrompt, structuredPrompt } from '../inject.js';
import { toolResult } from '../results.js';
import type { ToolSpec } from './types.js';

const FORMATS = ['compiled', 'structured'] as const;

/** `inject`, `list_spaces` and `get_space` (seed 001). */
export function spaceTools(spaceIds: readonly string[]): ToolSpec[] {
  const spaceId = { type: 'string', description: `Space id (${spaceIds.join(', ')})` } as const;
  return [
    {
      name: 'inject',
      description:
        'Get a space\'s prompt to use as the system message of a fresh chat: "compiled" (default) is one string with the system prompt, ' +
        'enabled skills, how to write code for the space and its capability signatures; "structured" returns those parts separately.',
      inputSchema: {
        type: 'object',
        properties: { spaceId, format: { type: 'string', description: '"compiled" (default) or "structured"' } },
        required: ['spaceId'],
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { spaceId: id, format = 'compiled' } = args as { spaceId: string; format?: string };
        const definition = connection.definition(id);
        if (!FORMATS.includes(format as (typeof FORMATS)[number])) {
          throw new AgentSpacesError('INVALID_FORMAT', `Unknown format "${format}" (use ${FORMATS.map((f) => `"${f}"`).join(' or ')})`, {
            format,
            allowed: [...FORMATS],
          });
        }
        const catalog = await connection.catalog(definition);
        if (format === 'structured') return toolResult(structuredPrompt(definition, catalog));
        return toolResult({ spaceId: definition.id, spaceName: definition.name, prompt: compiledPrompt(definition, catalog) });
      },
    },
    {
      name: 'list_spaces',
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
      description: 'A space\'s full definition (not compiled): system prompt, every skill with its enabled flag, capabilities, tools and prompts.',
      inputSchema: { type: 'object', properties: { spaceId }, required: ['spaceId'], additionalProperties: false },
      async handler(args, { connection }) {
        const definition = connection.definition((args as { spaceId: string }).spaceId);
        const space = await connection.space(definition);
        const { tools, prompts, ...rest } = definition;
        return toolResult({
          ...rest,
          capabilities: [...space.capabilities],
          tools: (tools ?? []).map(({ name, description, parameters }) => ({ name, description, parameters })),
          prompts: prompts ?? [],
        });
      },
    },
  ];
}
