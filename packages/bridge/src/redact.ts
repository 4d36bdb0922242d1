import { envValue, placeholdersIn, type PlaceholderEnv } from '@agent-spaces/capabilities';

/** `name → value` of the variables among `names` that are set in `env` (default `process.env`). */
export function secretsFromEnv(names: Iterable<string>, env: PlaceholderEnv = process.env): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of names) {
    const value = envValue(env, name);
    if (value !== undefined) found.set(name, value);
  }
  return found;
}

/** Names of the `${VAR}` / `${VAR:-default}` placeholders in every string of `value` (objects and arrays searched deeply). */
export function placeholderNames(value: unknown): string[] {
  const names = new Set<string>();
  const visit = (item: unknown, depth: number): void => {
    if (depth > 32) return;
    if (typeof item === 'string') {
      for (const name of placeholdersIn(item)) names.add(name);
    } else if (Array.isArray(item)) {
      for (const element of item) visit(element, depth + 1);
    } else if (typeof item === 'object' && item !== null) {
      for (const element of Object.values(item)) visit(element, depth + 1);
    }
  };
  visit(value, 0);
  return [...names].sort();
}
