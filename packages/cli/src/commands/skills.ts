import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { visibleText } from '@agent-spaces/capabilities';
import type { CommandContext } from './context.js';
import { toJson } from '../json.js';

/** The project of the command: the current folder, or the config file `--config` names. */
function project(context: CommandContext) {
  const configFile = typeof context.values.config === 'string' ? context.values.config : undefined;
  return { rootDir: process.cwd(), ...(configFile ? { configFile } : {}) };
}

/** `agent-spaces skills list`: the project's skills, with their signatures, marking those MCP clients saved. */
export async function list(context: CommandContext): Promise<number> {
  const { listSkills } = await import('@agent-spaces/sdk');
  const skills = await listSkills(project(context));
  if (context.values.json === true) {
    context.output.out(toJson(skills));
    return 0;
  }
  if (skills.length === 0) context.output.err('No skills yet: save one with `agent-spaces skills save <file> --name <name>`.');
  for (const skill of skills) {
    const owner = skill.owner === 'client' ? ' (saved by an MCP client)' : '';
    context.output.out(visibleText(skill.built ? `${skill.signature}  // ${skill.summary}${owner}` : `${skill.file}: not built (run \`agent-spaces capabilities build\` to see why)${owner}`));
  }
  return 0;
}

/** `agent-spaces skills save <file> [--name N] [--replace]`: checks the file, saves it as `skills/<name>.ts`, rebuilds. */
export async function save(context: CommandContext): Promise<number> {
  const { saveSkill } = await import('@agent-spaces/sdk');
  const file = context.positionals[0]!;
  const code = await readFile(file, 'utf8');
  const name = typeof context.values.name === 'string' ? context.values.name : basename(file).replace(/\.[cm]?ts$/, '');
  const description = typeof context.values.description === 'string' ? context.values.description : undefined;
  const saved = await saveSkill({ ...project(context), name, code, replace: context.values.replace === true, ...(description ? { description } : {}) });
  if (context.values.json === true) context.output.out(toJson(saved));
  else context.output.out(`✓ saved ${saved.file}: ${saved.signature}\n  ${saved.import}`);
  return 0;
}

/** `agent-spaces skills remove <name>`: deletes `skills/<name>.ts` and rebuilds. */
export async function remove(context: CommandContext): Promise<number> {
  const { deleteSkill } = await import('@agent-spaces/sdk');
  const removed = await deleteSkill({ ...project(context), name: context.positionals[0]! });
  if (context.values.json === true) context.output.out(toJson(removed));
  else context.output.out(`✓ removed ${removed.file}`);
  return 0;
}
