import { findOpenApiSourceProblem } from '../sources/openapi/config.js';
import { findPackageEntryProblem, isPackageEntry } from '../sources/npm/config.js';
import { findPoliciesProblem, findStdConfigProblem, findTypecheckBudgetProblem, isAgentSpacesError, isRecord, type AgentSpacesConfig } from '@agent-spaces/capabilities';
import { parseMcpServers } from '@agent-spaces/mcp/config';

/** Checks one config value; returns what is wrong with it (`must be an array of strings`), or undefined when valid. */
type ConfigCheck = (value: unknown) => string | undefined;

const nonEmptyString: ConfigCheck = (value) =>
  typeof value === 'string' && value.length > 0 ? undefined : 'must be a non-empty string';

const object: ConfigCheck = (value) => (isRecord(value) ? undefined : 'must be an object');

const boolean: ConfigCheck = (value) => (typeof value === 'boolean' ? undefined : 'must be true or false');

const objectArray: ConfigCheck = (value) =>
  Array.isArray(value) && value.every((item) => object(item) === undefined) ? undefined : 'must be an array of objects';

/**
 * `capabilities`: file globs and npm packages (`npm:<package>`, `{ package, … }`, checked by the npm source), or the
 * registry shape `{ global: [...], mcpServers: {...} }`.
 */
const capabilities: ConfigCheck = (value) => {
  if (isRecord(value)) {
    for (const key of Object.keys(value)) if (key !== 'global' && key !== 'mcpServers') return `has an unknown key "${key}" (known: global, mcpServers)`;
    const problem = value.global === undefined ? undefined : capabilityEntries(value.global);
    if (problem) return `global${problem.startsWith('[') ? '' : ' '}${problem}`;
    const servers = value.mcpServers === undefined ? undefined : mcpServers(value.mcpServers);
    return servers ? `mcpServers: ${servers}` : undefined;
  }
  return capabilityEntries(value);
};

/** The entries of the array form of `capabilities`: the problem of the first bad one (`[2].mode must be …`). */
function capabilityEntries(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be an array of file globs and npm packages, or { global, mcpServers }';
  for (const [index, entry] of value.entries()) {
    const problem = isPackageEntry(entry)
      ? findPackageEntryProblem(entry)
      : typeof entry === 'string' && entry !== ''
        ? undefined
        : { message: 'must be a file glob, npm:<package> or { package, name?, exports?, mode? }' };
    if (problem) return `[${index}]${problem.key ? `.${problem.key}` : ''} ${problem.message}`;
  }
  return undefined;
}

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
  if (!Array.isArray(value)) return 'must be an array of OpenAPI sources ({ name, spec } or { name, url })';
  for (const [index, entry] of value.entries()) {
    const problem = findOpenApiSourceProblem(entry);
    if (problem) return `[${index}]${problem.key ? `.${problem.key}` : ''} ${problem.message}`;
  }
  return undefined;
};

/**
 * Every key `agent-spaces.config.*` may set and how it is checked. Adding a config key is one line here
 * (the mapped type makes a key added to `AgentSpacesConfig` without a check a type error).
 */
const CONFIG_KEYS: { readonly [K in keyof Required<AgentSpacesConfig>]: ConfigCheck } = {
  capabilities,
  outDir: nonEmptyString,
  server: object,
  spaces: objectArray,
  model: object,
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
  recordResults: boolean,
  userSecrets: nonEmptyString,
  typecheck: (value) => {
    const problem = findTypecheckBudgetProblem(value);
    return problem === undefined ? undefined : `is invalid (${problem})`;
  },
};

/** One problem found in a config object: the key (dotted path) and what is wrong. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/** Validates a config file's default export against {@link CONFIG_KEYS}; returns the first problem, if any. */
export function findConfigProblem(value: unknown): ConfigProblem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { key: 'default', message: 'the default export must be an object' };
  }
  const checks: Readonly<Record<string, ConfigCheck>> = CONFIG_KEYS;
  for (const [key, item] of Object.entries(value)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (!check) {
      return { key, message: `unknown key "${key}" (known keys: ${Object.keys(checks).join(', ')})` };
    }
    if (item === undefined) continue;
    const problem = check(item);
    if (problem) return { key, message: `"${key}" ${problem}` };
  }
  const config = value as AgentSpacesConfig;
  if (config.mcpServers !== undefined && isRecord(config.capabilities) && config.capabilities.mcpServers !== undefined) {
    return { key: 'mcpServers', message: 'mcpServers is given twice, at the top level and in capabilities.mcpServers: keep one' };
  }
  return undefined;
}
