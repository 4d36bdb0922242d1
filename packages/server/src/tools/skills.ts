import { AgentSpacesError, type JsonSchema } from '@agent-spaces/capabilities';
import { deleteSkill, listSkills, saveSkill, type SaveSkillOptions, type SkillShare } from '@agent-spaces/sdk';
import { toolResult } from '../results.js';
import { isUser } from '../skills/visibility.js';
import { READS, outputOf, type ToolContext, type ToolSpec } from './types.js';

const name = { type: 'string', description: 'The skill\'s name: a camelCase identifier, also its file\'s (skills/<name>.ts) and its function\'s' } as const;

const TEXT = { type: 'string' } as const;

const share: JsonSchema = {
  description:
    "Who may see and call the skill: 'private' (you only; the default for a new skill of a signed-in user), 'space' (every client; " +
    "the default, and the only choice, for other clients) or { groups: [...] } (members of any of these groups). A replaced skill keeps " +
    'its share unless given. A skill someone may not see is, to them, a skill that does not exist.',
  oneOf: [
    { type: 'string', enum: ['private', 'space'] },
    {
      type: 'object',
      properties: { groups: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 }, minItems: 1, maxItems: 32 } },
      required: ['groups'],
      additionalProperties: false,
    },
  ],
};

/**
 * What `save_skill` saves for this client: a user's skills are its own (across its connections) and private unless
 * `share` says otherwise; other clients' skills are shared with the space, as before users.
 */
function saving({ connection }: ToolContext, args: { share?: SkillShare }): Pick<SaveSkillOptions, 'defaultShare'> {
  if (isUser(connection.principal)) return { defaultShare: 'private' };
  if (args.share !== undefined && args.share !== 'space') {
    throw new AgentSpacesError('INVALID_ARGUMENTS', "share: only a signed-in user's skills can be private or shared with groups", { field: 'share' });
  }
  return {};
}

/** `save_skill`, `list_skills` and `delete_skill`: the project's typed skills (docs/mcp-server.md, "Skills"). */
export function skillTools(): ToolSpec[] {
  return [
    {
      name: 'save_skill',
      title: 'Save a skill',
      // It writes skills/<name>.ts in the project; with `replace` it overwrites one.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      outputSchema: outputOf({ name: TEXT, file: TEXT, signature: TEXT, import: TEXT, usage: TEXT }),
      description:
        'Keep working code as a typed skill that later scripts import: `import { skills } from "@capabilities/skills"; await skills.<name>(params)`. ' +
        '`code` is one async function with declared types, exported (default export too) — e.g. name "addVat", code ' +
        '`export default async function addVat(params: { amount: number }): Promise<number> { return params.amount * 1.2; }` — ' +
        'or, with `parameters` (a JSON Schema of params), just its body: `return params.amount * 1.2;`. `description` becomes its doc comment. ' +
        'It may import @capabilities/* (not files or packages); it is typechecked, saved as skills/<name>.ts and built. A refusal shows the code ' +
        'in the accepted shape. Only you replace (`replace: true`) or delete your skill; `share` says who else may see and call it.',
      inputSchema: {
        type: 'object',
        properties: {
          name,
          code: { type: 'string', description: 'TypeScript module exporting the async function (or, with `parameters`, its body)' },
          description: { type: 'string', maxLength: 4096, description: 'What the skill does; its doc comment when the code has none' },
          parameters: { type: 'object', description: 'JSON Schema of params: `code` is then the body of the function, using `params`' },
          returns: { type: 'object', description: 'JSON Schema of the result of a body given with `parameters` (default: unknown)' },
          replace: { type: 'boolean', description: 'Overwrite an existing skill of this name (default false)' },
          share,
        },
        required: ['name', 'code'],
        additionalProperties: false,
      },
      async handler(args, context) {
        const asked = args as Pick<SaveSkillOptions, 'name' | 'code' | 'description' | 'parameters' | 'returns' | 'replace' | 'share'>;
        const saved = await saveSkill({ ...context.connection.skills, ...saving(context, asked), ...asked });
        context.connection.state.shared.noticeBuild();
        return toolResult({ ...saved, usage: `${saved.import}\nconst result = await skills.${saved.name}(/* params */);` });
      },
    },
    {
      name: 'list_skills',
      title: 'List skills',
      annotations: READS,
      outputSchema: outputOf({ skills: { type: 'array', items: outputOf({ name: TEXT, file: TEXT, built: { type: 'boolean' } }) } }),
      description:
        'The project\'s skills (skills/*.ts) you may see: name, signature and summary, whether the last build built it, whose it is (`yours`) ' +
        'and with whom it is shared (`shared`).',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      async handler(_args, context) {
        return toolResult({ skills: await listSkills(context.connection.skills) });
      },
    },
    {
      name: 'delete_skill',
      title: 'Delete a skill',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      outputSchema: outputOf({ deleted: TEXT, file: TEXT }),
      description: 'Delete one of your skills (its file skills/<name>.ts) and rebuild; scripts can no longer import it.',
      inputSchema: { type: 'object', properties: { name }, required: ['name'], additionalProperties: false },
      async handler(args, context) {
        const deleted = await deleteSkill({ ...context.connection.skills, name: (args as { name: string }).name });
        context.connection.state.shared.noticeBuild();
        return toolResult({ deleted: deleted.name, file: deleted.file });
      },
    },
  ];
}
