import { AgentSpacesError, capabilitiesDir, resolveOutDir, type CatalogEntry, type JsonSchema, type ObjectSchema } from '@agent-spaces/capabilities';
import { listBuiltCapabilities, readBuiltJson, readCatalog, resolveCapabilityNames } from '@agent-spaces/bridge/output';
import type { CatalogOptions } from '../catalog.js';
import type { SpaceDefinition } from '../config.js';
import { privacyOf } from '../privacy/index.js';
import { toolError, toolResult } from '../results.js';
import type { ToolSpec } from './types.js';

/** The longest tool name a direct tool may have: what the model APIs behind MCP clients accept (the config's tool names too). */
const MAX_NAME_LENGTH = 64;

/** One built function's schemas, as `schema.json` holds them. */
interface FunctionSchemas {
  parameters: ObjectSchema;
  returns?: JsonSchema;
}

/** One capability function a space serves as a tool of its own. */
interface DirectFunction {
  space: SpaceDefinition;
  capability: string;
  function: string;
  schemas: FunctionSchemas;
  entry: CatalogEntry | undefined;
}

/**
 * The MCP tools of the spaces' `directTools` (docs/mcp-server.md, "Direct tools"): one per capability function a
 * pattern matches, named `<capability>_<function>` (`notes_create`, `company-crm_searchCustomers`; other characters
 * than letters, digits, `_` and `-` become `_`), with the function's parameters schema as input schema, its result
 * schema as output schema when that is an object, and its doc comment as description. A call goes to the space's
 * bridge as a call from code does (validation, policy, approval, rate limit, audit, for the client's principal).
 * Read from the build in `options` when the server starts or reloads. Throws `CONFIG_INVALID` naming the pattern
 * that matches no function, and the name of a tool that is already one of `taken` (or another direct tool).
 */
export function directToolSpecs(spaces: readonly SpaceDefinition[], options: CatalogOptions, taken: ReadonlySet<string>): ToolSpec[] {
  const names = new Set(taken);
  const specs: ToolSpec[] = [];
  spaces.forEach((space, i) => {
    if (!space.directTools?.length) return;
    for (const fn of directFunctions(space, `spaces[${i}].directTools`, options)) {
      const spec = directToolSpec(fn);
      const clash = names.has(spec.name) ? 'is already a tool of this server' : spec.name.length > MAX_NAME_LENGTH ? `is longer than ${MAX_NAME_LENGTH} characters` : undefined;
      if (clash) {
        throw new AgentSpacesError('CONFIG_INVALID', `spaces[${i}].directTools: the tool "${spec.name}" (${fn.capability}.${fn.function}) ${clash}`, {
          key: `spaces[${i}].directTools`,
          tool: spec.name,
        });
      }
      names.add(spec.name);
      specs.push(spec);
    }
  });
  return specs;
}

/** The tool name of capability function `fn` of capability `capability`. */
function directToolName(capability: string, fn: string): string {
  return `${capability}_${fn}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The functions of `space`'s built capabilities its `directTools` patterns match, in build order; `key` names the field in errors. */
function directFunctions(space: SpaceDefinition, key: string, options: CatalogOptions): DirectFunction[] {
  const dir = capabilitiesDir(resolveOutDir(options.rootDir ?? process.cwd(), options.outDir));
  let built: { id: string; functions: [string, FunctionSchemas][]; entries: CatalogEntry[] }[];
  try {
    const ids = space.capabilities ? resolveCapabilityNames(dir, space.capabilities) : listBuiltCapabilities(dir);
    built = ids.map((id) => {
      const schema = readBuiltJson(dir, id, 'schema.json') as { functions: Record<string, FunctionSchemas> };
      return { id, functions: Object.entries(schema.functions), entries: readCatalog(dir, id) };
    });
  } catch (error) {
    throw new AgentSpacesError('CONFIG_INVALID', `${key}: cannot read the built capabilities: ${(error as Error).message}`, { key }, { cause: error });
  }
  const patterns = (space.directTools ?? []).map((pattern) => ({ pattern, test: globTest(pattern), used: false }));
  const chosen: DirectFunction[] = [];
  for (const { id, functions, entries } of built) {
    for (const [name, schemas] of functions) {
      const matching = patterns.filter((p) => p.test(`${id}.${name}`));
      if (matching.length === 0) continue;
      for (const p of matching) p.used = true;
      chosen.push({ space, capability: id, function: name, schemas, entry: entries.find((e) => e.function === name) });
    }
  }
  const unused = patterns.find((p) => !p.used);
  if (unused) {
    const known = built.flatMap(({ id, functions }) => functions.map(([name]) => `${id}.${name}`));
    throw new AgentSpacesError('CONFIG_INVALID', `${key}: "${unused.pattern}" matches no capability function of space "${space.id}" (functions: ${known.join(', ')})`, {
      key,
      pattern: unused.pattern,
    });
  }
  return chosen;
}

/** Whether `<capability>.<function>` matches `pattern` (`*` any run of characters; a leading `mcp:<server>` is its id `mcp-<server>`). */
function globTest(pattern: string): (path: string) => boolean {
  const source = pattern.replace(/^mcp:/, 'mcp-').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  const regex = new RegExp(`^${source}$`);
  return (path) => regex.test(path);
}

/** The tool of one direct function: its call goes to the bridge of the space's current build. */
function directToolSpec(fn: DirectFunction): ToolSpec {
  const { parameters, returns } = fn.schemas;
  const outputSchema = isObjectSchema(returns) ? returns : undefined;
  return {
    name: directToolName(fn.capability, fn.function),
    title: fn.entry?.path ?? `${fn.capability}.${fn.function}`,
    description: description(fn),
    inputSchema: parameters,
    ...(outputSchema ? { outputSchema } : {}),
    async handler(args, { connection, runOptions }) {
      const definition = connection.definition(fn.space.id);
      const privacy = await privacyOf(connection, definition);
      return privacy.answer(directToolName(fn.capability, fn.function), async () => {
        const space = await connection.space(definition);
        const { signal, onApproval } = runOptions;
        const options = { ...(signal ? { signal } : {}), ...(onApproval ? { onApproval } : {}) };
        const outcome = await space.call(fn.capability, fn.function, privacy.args(args), options);
        if (!outcome.ok) return toolError(outcome.error);
        return toolResult(outcome.value ?? null);
      });
    },
  };
}

/** The function's doc comment without its `@param` lines (the input schema describes the parameters). */
function description(fn: DirectFunction): string {
  const doc = fn.entry?.doc ?? `${fn.capability}.${fn.function}`;
  return doc
    .split('\n')
    .filter((line) => !line.startsWith('@param'))
    .join('\n')
    .trim();
}

function isObjectSchema(schema: JsonSchema | undefined): schema is ObjectSchema {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';
}
