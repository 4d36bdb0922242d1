/**
 * `${NAME}` and `${NAME:-default}` placeholders: the one grammar of environment variables in configs and built
 * executors (`mcpServers`, HTTP headers, OpenAPI auth). A variable counts as set when it is a non-empty string.
 */

/** Environment variables placeholders are expanded from. */
export type PlaceholderEnv = Readonly<Record<string, string | undefined>>;

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const ENV_NAME = new RegExp(`^${NAME}$`);
const PLACEHOLDER = new RegExp(`\\$\\{(${NAME})(?::-([^}]*))?\\}`, 'g');

/** True for a string that can name an environment variable in a placeholder (`API_TOKEN`, `_x1`). */
export function isEnvName(value: unknown): value is string {
  return typeof value === 'string' && ENV_NAME.test(value);
}

/** The value of variable `name` in `env`, or undefined when it is unset or empty. */
export function envValue(env: PlaceholderEnv, name: string): string | undefined {
  const value: unknown = env[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Names of the variables the placeholders of `text` refer to, in order, repeats included. */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/**
 * `text` with every placeholder expanded from `env`. A variable that is unset (or empty) takes the placeholder's
 * default; without one, `unset(name)` throws the caller's error. `found(name, value)` hears each value taken from
 * `env` (a secret to redact), defaults excluded.
 * @example
 * expandPlaceholders('Bearer ${TOKEN}', { TOKEN: 'tok-1' }, (name) => { throw new Error(`${name} is not set`); }) // 'Bearer tok-1'
 */
export function expandPlaceholders(
  text: string,
  env: PlaceholderEnv,
  unset: (name: string) => never,
  found?: (name: string, value: string) => void,
): string {
  return text.replace(PLACEHOLDER, (_, name: string, fallback: string | undefined) => {
    const value = envValue(env, name);
    if (value === undefined) return fallback ?? unset(name);
    found?.(name, value);
    return value;
  });
}
