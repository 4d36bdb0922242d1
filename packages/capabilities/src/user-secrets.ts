/**
 * `${user:NAME}` placeholders: a credential of the calling principal's own, for an upstream MCP server's `headers` or
 * stdio `env`, an OpenAPI source's `auth` / `headers` and an HTTP tool's `headers` (docs/mcp.md, "Per-user
 * credentials"). They are resolved at call time from a {@link UserSecrets} store for `HandlerContext.principal` — never
 * from the access token the client sent: that token reaches no upstream.
 */
import { AgentSpacesError } from './errors.js';
import { LOCAL_PRINCIPAL, type Principal } from './principal.js';

/** Where the per-user secrets of a space come from: the operator's secrets file by default, or any store. */
export interface UserSecrets {
  /** The value of secret `name` of `principal` (looked up by `principal.id`), or undefined when it has none. */
  get(principal: Principal, name: string): Promise<string | undefined>;
  /** Where an operator sets them, for the `CREDENTIAL_MISSING` message and `data.source` (a file path, `postgres`). */
  readonly source: string;
}

const USER_PLACEHOLDER = /\$\{user:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Names of the `${user:NAME}` placeholders of `text`, in order, repeats included. */
export function userPlaceholdersIn(text: string): string[] {
  return [...text.matchAll(USER_PLACEHOLDER)].map((match) => match[1]!);
}

/** Names of the `${user:NAME}` placeholders in every string of `value` (objects and arrays searched deeply), sorted. */
export function userPlaceholderNames(value: unknown): string[] {
  const names = new Set<string>();
  const visit = (item: unknown, depth: number): void => {
    if (depth > 32) return;
    if (typeof item === 'string') for (const name of userPlaceholdersIn(item)) names.add(name);
    else if (typeof item === 'object' && item !== null) for (const element of Object.values(item)) visit(element, depth + 1);
  };
  visit(value, 0);
  return [...names].sort();
}

/**
 * `text` with each `${user:NAME}` replaced by `user(NAME)` and the text between them passed through `rest` (the
 * `${VAR}` expansion): one pass, so neither kind of value is ever read as a placeholder of the other.
 * @example
 * expandUserPlaceholders('Bearer ${user:TOKEN}', (s) => s, () => 'tok-alice') // 'Bearer tok-alice'
 */
export function expandUserPlaceholders(text: string, rest: (segment: string) => string, user: (name: string) => string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(USER_PLACEHOLDER)) {
    out += rest(text.slice(last, match.index)) + user(match[1]!);
    last = match.index + match[0].length;
  }
  return out + rest(text.slice(last));
}

/**
 * Resolves `${user:NAME}` values for a principal from a {@link UserSecrets} store (none configured: every secret is
 * missing). Each value found is handed to `onResolved(`user:NAME`, value)` first (the space's redactor learns it
 * before the value goes anywhere).
 */
export class UserCredentials {
  constructor(
    private readonly store: UserSecrets | undefined,
    private readonly onResolved?: (name: string, value: string) => void,
  ) {}

  /** Where secrets are set, as the errors name it. */
  get source(): string {
    return this.store?.source ?? 'nowhere: the space has no userSecrets (config key `userSecrets`)';
  }

  /**
   * The value of each of `names` for `principal` (undefined: the `local` principal), by name. A missing one throws
   * `CREDENTIAL_MISSING` naming the placeholder, the principal, `where` needs it and where to set it.
   */
  async resolve(principal: Principal | undefined, names: readonly string[], where: string): Promise<Map<string, string>> {
    const who = principal ?? LOCAL_PRINCIPAL;
    const values = new Map<string, string>();
    for (const name of names) {
      const value = await this.store?.get(who, name);
      if (typeof value !== 'string' || value === '') {
        const message = `${where} needs \${user:${name}}, which is not set for principal "${who.id}": set "${name}" under "${who.id}" in ${this.source}`;
        throw new AgentSpacesError('CREDENTIAL_MISSING', message, { name, principal: who.id, source: this.source });
      }
      this.onResolved?.(`user:${name}`, value);
      values.set(name, value);
    }
    return values;
  }
}
