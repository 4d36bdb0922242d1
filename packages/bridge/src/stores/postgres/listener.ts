import type { Client } from 'pg';

/** How long the first reconnect waits, in ms; each failed one doubles it, up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * The LISTEN side of a {@link SharedDatabase}: one dedicated connection (notifications need a session of their own,
 * outside the pool) listening on every channel someone listens to. When the server goes away the connection is
 * dropped and made again, with backoff, and every channel is listened to again; notifications sent meanwhile are lost,
 * so listeners must also look for themselves now and then.
 */
export class Listener {
  readonly #newClient: () => Client;
  readonly #handlers = new Map<string, Set<(payload: string) => void>>();
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #backoffMs = FIRST_BACKOFF_MS;
  #closed = false;

  /** `newClient` makes a new, unconnected client of the database. */
  constructor(newClient: () => Client) {
    this.#newClient = newClient;
  }

  /** Calls `onMessage` with the payload of each notification on `channel`; returns the function that stops it. Throws when the server cannot be reached now. */
  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
    const handlers = this.#handlers.get(channel) ?? new Set();
    this.#handlers.set(channel, handlers);
    handlers.add(onMessage);
    const stop = async () => {
      handlers.delete(onMessage);
      if (handlers.size > 0 || this.#handlers.get(channel) !== handlers) return;
      this.#handlers.delete(channel);
      await this.#client?.query(`UNLISTEN ${this.#client.escapeIdentifier(channel)}`).catch(() => undefined);
    };
    try {
      const client = await this.#ready();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      await stop();
      throw error;
    }
    return stop;
  }

  /** Ends the connection; no reconnect follows. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The connected client, connecting it (once, however many ask at a time) when there is none. */
  #ready(): Promise<Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<Client> {
    if (this.#closed) throw new Error('the database was closed');
    const client = this.#newClient();
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', ({ channel, payload }) => {
      for (const handler of this.#handlers.get(channel) ?? []) handler(payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.#handlers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error('the database was closed');
    }
    this.#client = client;
    this.#backoffMs = FIRST_BACKOFF_MS;
    return client;
  }

  /** `client`'s connection went away: drops it and reconnects (with backoff) while anyone listens. */
  #lost(client: Client): void {
    if (this.#client === client) this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry || this.#handlers.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#client || this.#handlers.size === 0) return;
      this.#ready().catch(() => {
        this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
        this.#scheduleReconnect();
      });
    }, this.#backoffMs);
    this.#retry.unref();
  }
}
