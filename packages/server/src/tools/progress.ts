import { AgentSpacesError, type RunEvent } from '@agent-spaces/capabilities';
import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** Sends one notification related to a tool call; rejects when it cannot be delivered. */
export type ProgressSender = (notification: ServerNotification) => Promise<void>;

/** Default longest silence of a tool call with a `progressToken`: a notification at least this often keeps it alive. */
const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/** Bounds of `progressIntervalSeconds`: a shorter interval floods the client, a longer one lets its timeouts fire. */
const PROGRESS_INTERVAL_SECONDS = { min: 0.01, max: 3600 };

/**
 * The server option `progressIntervalSeconds` in ms (default 10 s); throws `CONFIG_INVALID` naming it unless it is a
 * number from 0.01 to 3600. `where` names the options in the message.
 */
export function progressIntervalMs(seconds: unknown, where: string): number {
  if (seconds === undefined) return DEFAULT_PROGRESS_INTERVAL_MS;
  const { min, max } = PROGRESS_INTERVAL_SECONDS;
  if (typeof seconds !== 'number' || !(seconds >= min && seconds <= max)) {
    throw new AgentSpacesError('CONFIG_INVALID', `${where}: progressIntervalSeconds must be a number from ${min} to ${max}, got ${String(seconds)}`, {
      key: 'progressIntervalSeconds',
    });
  }
  return seconds * 1000;
}

/**
 * The `notifications/progress` of one tool call whose request carried a `progressToken`, fed with its runs' events:
 * one when a capability call starts, waits for approval, reports progress (an upstream MCP server's progress, with its
 * message) and finishes, and a heartbeat after `intervalMs` without any. `progress` counts the notifications, so it
 * grows strictly; there is no `total`. Nothing is sent after {@link close}.
 */
export class CallProgress {
  readonly #token: ProgressToken;
  readonly #send: ProgressSender;
  readonly #started = performance.now();
  readonly #timer: NodeJS.Timeout;
  #sent = 0;
  #closed = false;

  /** `send` delivers a notification related to the call (on its response stream over HTTP). */
  constructor(token: ProgressToken, send: ProgressSender, intervalMs: number) {
    this.#token = token;
    this.#send = send;
    this.#timer = setInterval(() => this.#notify(`running for ${Math.round((performance.now() - this.#started) / 1000)} s`), intervalMs);
    this.#timer.unref();
  }

  /** Reports a run event worth telling the client about; other events are ignored. */
  onEvent(event: RunEvent): void {
    switch (event.type) {
      case 'capabilityCall':
        return this.#notify(`${event.capability}.${event.function} started`);
      case 'approvalRequired':
        return this.#notify(`${event.source === 'script' ? 'the script' : `${event.capability}.${event.function}`} waits for approval`);
      case 'progress': {
        const figures = event.total === undefined ? String(event.progress) : `${event.progress}/${event.total}`;
        return this.#notify(`${event.capability}.${event.function}: ${event.message ? `${event.message} (${figures})` : figures}`);
      }
      case 'capabilityResult': {
        const outcome = event.ok ? `ok in ${Math.round(event.durationMs)} ms` : `failed: ${event.error?.code ?? 'INTERNAL'}`;
        return this.#notify(`${event.capability}.${event.function} ${outcome}`);
      }
      default:
        return;
    }
  }

  /** Stops the heartbeat; later events send nothing (the call's result is on its way). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  #notify(message: string): void {
    if (this.#closed) return;
    this.#timer.refresh();
    const notification: ServerNotification = { method: 'notifications/progress', params: { progressToken: this.#token, progress: ++this.#sent, message } };
    // A notification that cannot be delivered (the client went away) changes nothing for the run.
    this.#send(notification).catch(() => undefined);
  }
}
