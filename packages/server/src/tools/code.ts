import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { Catalog } from '../catalog.js';
import { privacyOf } from '../privacy/index.js';
import { runResult, toolResult } from '../results.js';
import { SEARCH_DETAILS, formatSearch, searchCatalog, type SearchDetail } from '../search.js';
import { READS, RUNS, RUN_OUTPUT, outputOf, spaceIdProperty, type ToolSpec } from './types.js';

const MAX_LIMIT = 50;

/** `execute`, `search_capabilities` and `describe_capabilities`. */
export function codeTools(spaceIds: readonly string[]): ToolSpec[] {
  const spaceId = spaceIdProperty(spaceIds);
  return [
    {
      name: 'execute',
      title: 'Run TypeScript',
      annotations: RUNS,
      outputSchema: outputOf(RUN_OUTPUT),
      description:
        'Run a TypeScript module in the sandbox; import the typed capabilities from "@capabilities/<id>" (find them with search_capabilities). ' +
        '`export default` or a top-level `return` is the result. Returns { result, logs, events, metadata }; a type error is a TYPE_ERROR with diagnostics.',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'TypeScript module source' }, ...spaceId },
        required: ['code'],
        additionalProperties: false,
      },
      execution: { taskSupport: 'optional' },
      async handler(args, { connection, runOptions }) {
        const { code, spaceId: id } = args as { code: string; spaceId?: string };
        const definition = connection.definition(id);
        const privacy = await privacyOf(connection, definition);
        return privacy.answer('execute', async () => {
          const space = await connection.space(definition);
          return runResult(await space.run(privacy.code(code), privacy.runOptions(runOptions)));
        });
      },
    },
    {
      name: 'search_capabilities',
      title: 'Search capabilities',
      annotations: READS,
      description:
        'Find capability functions by what they do, grouped by the module to import. detail: "names", "signatures" (default: one line each ' +
        'with its summary) or "full" (doc comment and the types used).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What the function does, e.g. "send message channel"' },
          detail: { type: 'string', enum: [...SEARCH_DETAILS] },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: 'Most functions (default 5)' },
          ...spaceId,
        },
        required: ['query'],
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { query, detail = 'signatures', limit = 5, spaceId: id } = args as { query: string; detail?: SearchDetail; limit?: number; spaceId?: string };
        const catalog = await connection.catalog(connection.definition(id));
        return toolResult(formatSearch(query, searchCatalog(catalog, query), detail, limit, catalog));
      },
    },
    {
      name: 'describe_capabilities',
      title: 'Describe capabilities',
      annotations: READS,
      description:
        'The TypeScript declarations (.d.ts) of one capability module or, without `capability`, of every module of the space.',
      inputSchema: {
        type: 'object',
        properties: { capability: { type: 'string', minLength: 1, description: 'Its id, "@capabilities/<id>" or export name' }, ...spaceId },
        additionalProperties: false,
      },
      async handler(args, { connection }) {
        const { capability, spaceId: id } = args as { capability?: string; spaceId?: string };
        return toolResult(describeCapabilities(await connection.catalog(connection.definition(id)), capability));
      },
    },
  ];
}

/**
 * The answer of `describe_capabilities`: the declarations of the module `capability` names (id, module or export
 * name), or of every module without it. Throws `CAPABILITY_NOT_FOUND` listing the modules.
 */
export function describeCapabilities(catalog: Catalog, capability: string | undefined): string {
  const modules = [...catalog.modules];
  const chosen = capability === undefined ? modules : modules.filter(([module]) => matchesModule(module, capability, catalog.entries));
  if (chosen.length === 0) {
    throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability "${capability}" in this space (modules: ${modules.map(([m]) => m).join(', ')})`, {
      capability,
      available: modules.map(([m]) => m),
    });
  }
  return chosen.map(([module, text]) => `// ${module}\n${text.trim()}`).join('\n\n');
}

function matchesModule(module: string, wanted: string, entries: readonly { module: string; path: string }[]): boolean {
  if (module === wanted || module === `@capabilities/${wanted}`) return true;
  return entries.some((e) => e.module === module && e.path.split('.')[0] === wanted);
}
