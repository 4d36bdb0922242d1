import { open } from 'node:fs/promises';
import { AgentSpacesError, isRecord, type Principal, type UserSecrets } from '@agent-spaces/capabilities';

/** The most a per-user secrets file may hold (1 MiB); a larger one fails every lookup with `CONFIG_INVALID`. */
export const MAX_USER_SECRETS_BYTES = 1024 * 1024;

type SecretsByPrincipal = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * The operator's per-user secrets file (config key `userSecrets`): JSON `{ "<principal id>": { "NAME": "value" } }`,
 * keyed by principal id exactly (`user:<sub>`, `token:<16 hex>`, `local`). It is read at the first lookup and again
 * whenever its size, modification time or inode changed, so an edit takes effect on the next call without a restart.
 * A missing file holds no secrets. A file group or others may read or write (any of mode `0o077`), a file over
 * {@link MAX_USER_SECRETS_BYTES}, invalid JSON or a value that is not a string fail the lookup with `CONFIG_INVALID`
 * naming the file (on Windows the mode is not checked).
 */
export class FileUserSecrets implements UserSecrets {
  #cached: { stamp: string; secrets: SecretsByPrincipal } | undefined;

  constructor(readonly file: string) {}

  /** The file path, as `CREDENTIAL_MISSING` names it. */
  get source(): string {
    return this.file;
  }

  async get(principal: Principal, name: string): Promise<string | undefined> {
    return (await this.#read()).get(principal.id)?.get(name);
  }

  async #read(): Promise<SecretsByPrincipal> {
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw this.#invalid(`cannot be read (${(error as Error).message})`);
    }
    try {
      const stat = await handle.stat({ bigint: true });
      const stamp = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
      if (this.#cached?.stamp === stamp) return this.#cached.secrets;
      if (process.platform !== 'win32' && (stat.mode & 0o077n) !== 0n) {
        throw this.#invalid(`is readable or writable by others (mode ${(stat.mode & 0o777n).toString(8)}): chmod 600 it`);
      }
      if (stat.size > BigInt(MAX_USER_SECRETS_BYTES)) throw this.#invalid(`is larger than ${MAX_USER_SECRETS_BYTES} bytes`);
      const secrets = this.#parse(await handle.readFile('utf8'));
      this.#cached = { stamp, secrets };
      return secrets;
    } finally {
      await handle.close();
    }
  }

  #parse(text: string): SecretsByPrincipal {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Not the parser's message: it quotes the text around the error, which holds secrets.
      throw this.#invalid('is not valid JSON');
    }
    if (!isRecord(json)) throw this.#invalid('must be an object of principal ids');
    const secrets = new Map<string, Map<string, string>>();
    for (const [principal, entry] of Object.entries(json)) {
      if (!isRecord(entry)) throw this.#invalid(`"${principal}" must be an object of secret names`);
      const values = new Map<string, string>();
      for (const [name, value] of Object.entries(entry)) {
        if (typeof value !== 'string') throw this.#invalid(`"${principal}"."${name}" must be a string`);
        values.set(name, value);
      }
      secrets.set(principal, values);
    }
    return secrets;
  }

  #invalid(problem: string): AgentSpacesError {
    return new AgentSpacesError('CONFIG_INVALID', `per-user secrets file ${this.file} ${problem}`, { file: this.file });
  }
}
