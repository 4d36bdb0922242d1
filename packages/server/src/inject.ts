import { CAPABILITY_PREFIX, STD_MODULE, type CatalogEntry } from '@agent-spaces/capabilities';
import type { Catalog } from './catalog.js';
import type { SpaceDefinition } from './config.js';
import { MCP_RESULT_NOTE, formatModules, returnsMcpResult } from './search.js';

/**
 * How to write code for a space: part of every compiled prompt and of the server's instructions. The import example
 * uses the first capability function among `entries` (catalog order; else a sandbox-mode npm package's export), or
 * says the space has none; the note on MCP results is there when one of them returns one.
 */
export function codeInstructions(entries: readonly CatalogEntry[]): string {
  // A capability function makes the example, as the line describes it; a space of npm packages only takes theirs.
  const modules = entries.filter((e) => e.module.startsWith(CAPABILITY_PREFIX));
  const first = modules.find((e) => e.function !== undefined) ?? modules[0];
  const importLine = first
    ? `- Import capabilities as ES modules: \`import { ${first.path.split('.')[0]} } from '${first.module}';\`. Each function`
    : `- Capabilities are ES modules (\`import { … } from '${CAPABILITY_PREFIX}<id>';\`); this space has none, only \`${STD_MODULE}\`. Each function`;
  return [
    '## Writing code for this space',
    'Do the work by writing one TypeScript script and running it with the `execute` tool (or `send_code` in a session from',
    '`create_session`, where top-level declarations persist between calls) instead of making many separate tool calls.',
    importLine,
    `  takes one params object and returns a Promise${modules.some((e) => e.function === undefined) ? "; an npm package's functions keep their own signatures, as listed" : ''}.`,
    '- `export default <value>` (or a top-level `return`) is the result; `console.log` output comes back as logs.',
    '- The script is typechecked before it runs; type errors come back with their line.',
    '- A failed call throws an error with a stable `code` (`INVALID_PARAMS`, `APPROVAL_DENIED`, …) that the script can catch.',
    ...(returnsMcpResult(entries) ? [`- ${MCP_RESULT_NOTE}`] : []),
    '- `search_capabilities` finds functions (detail: names | signatures | full); `describe_capabilities` gives full types.',
  ].join('\n');
}

/** The parts of a space's prompt, as `inject` with `format: 'structured'` returns them. */
export interface StructuredPrompt {
  spaceId: string;
  spaceName: string;
  systemPrompt: string | null;
  /** Enabled skills only. */
  skills: Array<{ id: string; name: string; description: string }>;
  codeInstructions: string;
  capabilities: Array<{ module: string; functions: string[] }>;
}

/** The structured parts of `space`'s prompt: system prompt, enabled skills, code instructions and signatures. */
export function structuredPrompt(space: SpaceDefinition, catalog: Catalog): StructuredPrompt {
  const capabilities = new Map<string, string[]>();
  for (const entry of catalog.entries) {
    const list = capabilities.get(entry.module) ?? [];
    list.push(entry.signature);
    capabilities.set(entry.module, list);
  }
  return {
    spaceId: space.id,
    spaceName: space.name,
    systemPrompt: space.systemPrompt ?? null,
    skills: (space.skills ?? []).filter((s) => s.enabled).map(({ id, name, description }) => ({ id, name, description })),
    codeInstructions: codeInstructions(catalog.entries),
    capabilities: [...capabilities].map(([module, functions]) => ({ module, functions })),
  };
}

/**
 * One prompt string ready to use as a system message (seed 001): who the agent is in this space, the system prompt,
 * the enabled skills, how to write code here and the signatures of every capability function.
 */
export function compiledPrompt(space: SpaceDefinition, catalog: Catalog): string {
  const parts = [`You are now working in the space "${space.name}" (spaceId: ${space.id}).`];
  if (space.systemPrompt) parts.push(space.systemPrompt.trim());
  const skills = (space.skills ?? []).filter((s) => s.enabled);
  if (skills.length > 0) {
    parts.push('---', ['## Active Skills', ...skills.map((s) => `### ${s.name}\n${s.description.trim()}`)].join('\n\n'));
  }
  parts.push('---', codeInstructions(catalog.entries));
  if (catalog.entries.length > 0) {
    parts.push(`## Capabilities\n\`\`\`ts\n${formatModules(catalog.entries, 'signatures').join('\n')}\n\`\`\``);
  }
  return parts.join('\n\n');
}
