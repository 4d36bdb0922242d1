import { findOpenApiSourceProblem } from '../sources/openapi/config.js';
import { findPackageEntryProblem, isPackageEntry } from '../sources/npm/config.js';
import { findPoliciesProblem, findStdConfigProblem, findTypecheckBudgetProblem, isAgentSpacesError, isRecord, type AgentSpacesConfig } from '@agent-spaces/capabilities';
import { parseMcpServers } from '@agent-spaces/mcp/config';
import { findSchemaProblems } from './file-schemas.js';

/** Checks one config value the schema found well-shaped; returns what is wrong with it, or undefined when valid. */
type ConfigCheck = (value: unknown) => string | undefined;

/** The npm package entries of `capabilities` (the schema checks the rest), through the npm source's check. */
const capabilities: ConfigCheck = (value) => {
  const entries = Array.isArray(value) ? value : (value as { global?: unknown[] }).global;
  for (const [index, entry] of (entries ?? []).entries()) {
    const problem = isPackageEntry(entry) ? findPackageEntryProblem(entry) : undefined;
    if (problem) return `${Array.isArray(value) ? '' : 'global'}[${index}]${problem.key ? `.${problem.key}` : ''} ${problem.message}`;
  }
  const servers = Array.isArray(value) ? undefined : (value as { mcpServers?: unknown }).mcpServers;
  const problem = servers === undefined ? undefined : mcpServers(servers);
  return problem ? `mcpServers: ${problem}` : undefined;
};

/** `mcpServers` through the MCP package's parser, so the problem names the server and field (`memory.command …`). */
const mcpServers: ConfigCheck = (value) => {
  try {
    parseMcpServers(value);
    return undefined;
  } catch (error) {
    if (isAgentSpacesError(error) && typeof error.data?.detail === 'string') return error.data.detail;
    throw error;
  }
};

/** Each `openapi` entry through the OpenAPI source check, naming the entry and field (`[1].spec must be …`). */
const openapi: ConfigCheck = (value) => {
  for (const [index, entry] of (value as unknown[]).entries()) {
    const problem = findOpenApiSourceProblem(entry);
    if (problem) return `[${index}]${problem.key ? `.${problem.key}` : ''} ${problem.message}`;
  }
  return undefined;
};

/**
 * Every key `agent-spaces.config.*` may set, and the check of what its schema cannot say (`undefined`: the schema
 * says it all). Shapes are `config.schema.json`'s; a test holds this table's keys and the schema's properties equal,
 * and the mapped type makes a key added to `AgentSpacesConfig` without a line here a type error.
 */
export const CONFIG_KEYS: { readonly [K in keyof Required<AgentSpacesConfig>]: ConfigCheck | undefined } = {
  capabilities,
  outDir: undefined,
  // Checked by `mcp serve` itself (packages/server/src/config.ts), as agent files are.
  server: undefined,
  spaces: undefined,
  model: undefined,
  mcpServers,
  openapi,
  policies: (value) => {
    const problem = findPoliciesProblem(value);
    return problem === undefined ? undefined : `is invalid (${problem})`;
  },
  std: (value) => {
    const problem = findStdConfigProblem(value);
    return problem === undefined ? undefined : `is invalid (${problem.message})`;
  },
  recordResults: undefined,
  userSecrets: undefined,
  typecheck: (value) => {
    const problem = findTypecheckBudgetProblem(value);
    return problem === undefined ? undefined : `is invalid (${problem})`;
  },
};

/** One problem found in a config object: the key (`server.port`, `default` for the whole file) and what is wrong. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/**
 * Validates a config file's default export: against `config.schema.json` (unknown keys with a "did you mean"), then
 * each key's own check in {@link CONFIG_KEYS}; returns the first problem, if any.
 */
export function findConfigProblem(value: unknown): ConfigProblem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { key: 'default', message: 'the default export must be an object' };
  }
  const [shape] = findSchemaProblems('config', withoutUndefined(value as Record<string, unknown>));
  if (shape) return { key: shape.path || 'default', message: shape.message };
  const checks: Readonly<Record<string, ConfigCheck | undefined>> = CONFIG_KEYS;
  for (const [key, item] of Object.entries(value)) {
    const problem = item === undefined ? undefined : checks[key]?.(item);
    if (problem) return { key, message: `"${key}" ${problem}` };
  }
  const config = value as AgentSpacesConfig;
  if (config.mcpServers !== undefined && isRecord(config.capabilities) && config.capabilities.mcpServers !== undefined) {
    return { key: 'mcpServers', message: 'mcpServers is given twice, at the top level and in capabilities.mcpServers: keep one' };
  }
  return undefined;
}

/** A `.ts` config may set a key to `undefined` (`outDir: process.env.OUT`): that is the key left out. */
function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined));
}
