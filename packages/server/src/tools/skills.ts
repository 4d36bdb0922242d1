import { deleteSkill, listSkills, saveSkill } from '@agent-spaces/sdk';
import { toolResult } from '../results.js';
import type { ToolContext, ToolSpec } from './types.js';

const name = { type: 'string', description: 'The skill\'s name: a camelCase identifier, also its file\'s (skills/<name>.ts) and its function\'s' } as const;

/** The project the server serves (where its skills are kept and built), acted on by this client: a skill's owner. */
const project = ({ connection }: ToolContext) => ({ ...connection.state.skillProject, owner: connection.id });

/** `save_skill`, `list_skills` and `delete_skill`: the project's typed skills (docs/mcp-server.md, "Skills"). */
export function skillTools(): ToolSpec[] {
  return [
    {
      name: 'save_skill',
      description:
        'Keep working code as a typed skill that later scripts import: `import { skills } from "@capabilities/skills"; await skills.<name>(params)`. ' +
        '`code` exports `async function <name>(params: Params): Promise<Result>` with declared types (it may import @capabilities/*); it is ' +
        'typechecked and bundled (it may not import files or packages), saved as skills/<name>.ts in the project and built. The skill is yours: ' +
        'only you replace (with `replace: true`) or delete it, and you cannot replace another client\'s or the operator\'s.',
      inputSchema: {
        type: 'object',
        properties: {
          name,
          code: { type: 'string', description: 'TypeScript module exporting the async function <name>' },
          description: { type: 'string', description: 'What the skill does; its doc comment when the code has none' },
          replace: { type: 'boolean', description: 'Overwrite an existing skill of this name (default false)' },
        },
        required: ['name', 'code'],
        additionalProperties: false,
      },
      async handler(args, context) {
        const saved = await saveSkill({ ...project(context), ...(args as { name: string; code: string; description?: string; replace?: boolean }) });
        context.connection.state.shared.noticeBuild();
        return toolResult({ ...saved, usage: `${saved.import}\nconst result = await skills.${saved.name}(/* params */);` });
      },
    },
    {
      name: 'list_skills',
      description: 'The project\'s skills (skills/*.ts): name, signature and summary, whether the last build built it, and whose it is (`yours`).',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      async handler(_args, context) {
        return toolResult({ skills: await listSkills(project(context)) });
      },
    },
    {
      name: 'delete_skill',
      description: 'Delete one of your skills (its file skills/<name>.ts) and rebuild; scripts can no longer import it.',
      inputSchema: { type: 'object', properties: { name }, required: ['name'], additionalProperties: false },
      async handler(args, context) {
        const deleted = await deleteSkill({ ...project(context), name: (args as { name: string }).name });
        context.connection.state.shared.noticeBuild();
        return toolResult({ deleted: deleted.name, file: deleted.file });
      },
    },
  ];
}
