import { findOpenApiSourceProblem } from '../sources/openapi/config.js';
import { findPoliciesProblem, isAgentSpacesError, isRecord, type AgentSpacesConfig } from '@agent-spaces/capabilities';
import { parseMcpServers } from '@agent-spaces/mcp/config';

/** Checks one config value; returns what is wrong with it (`must be an array of strings`), or undefined when valid. */
type ConfigCheck = (value: unknown) => string | undefined;

const nonEmptyString: ConfigCheck = (value) =>
  typeof value === 'string' && value.length > 0 ? undefined : 'must be a non-empty string';

const stringArray: ConfigCheck = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item.length > 0)
    ? undefined
    : 'must be an array of non-empty strings';

const object: ConfigCheck = (value) => (isRecord(value) ? undefined : 'must be an object');

const objectArray: ConfigCheck = (value) =>
  Array.isArray(value) && value.every((item) => object(item) === undefined) ? undefined : 'must be an array of objects';

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
  capabilities: stringArray,
  outDir: nonEmptyString,
  server: object,
  spaces: objectArray,
  mcpServers,
  openapi,
  policies: (value) => {
    const problem = findPoliciesProblem(value);
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
  return undefined;
}
