import { createHash } from 'node:crypto';

/** How `mcp serve` writes its log lines: one JSON object per line, or one human line. */
export type LogFormat = 'json' | 'text';

/** The formats {@link createServerLog} writes, for option checks. */
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/** How much a logged event matters. */
export type LogLevel = 'info' | 'warn' | 'error';

/**
 * What the server logs. `server.started` (transport, spaces; url, auth over HTTP) / `server.stopped` (transport,
 * reason); `server.reloaded` (config file, ok); `http.refused` (status, why, session tag); `client.connected` /
 * `client.disconnected` (client id, reason); `client.reaped` (an HTTP client found gone or unused: client id, why);
 * `tool.called` (tool, client, request, session, duration_ms, ok, code); `session.created` / `session.ended`
 * (session, client, space, reason); `skills.mirrored` (skills a replica took from the shared database: count, or the
 * error); `privacy.tokenized` (a tool answer of a space with `privacy`: tool, client, space, tokens and their kinds,
 * withheld strings, restored tokens — counts, never values). An HTTP client's id is its {@link sessionTag}, never its
 * MCP session id.
 */
export type LogEvent =
  | 'server.started'
  | 'server.stopped'
  | 'server.reloaded'
  | 'agent_files.reloaded'
  | 'agent_file.invalid'
  | 'http.refused'
  | 'client.connected'
  | 'client.disconnected'
  | 'client.reaped'
  | 'tool.called'
  | 'session.created'
  | 'session.ended'
  | 'session.restored'
  | 'session.transferred'
  | 'run.resumed'
  | 'skills.mirrored'
  | 'privacy.tokenized';

/**
 * The fields of one log line. Only ids, names, durations, codes and counts: never params, results, code or secrets.
 * Values are scalars by type, so no object can be logged whole; an `undefined` field is left out.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** The server's structured log: one line per event. */
export interface ServerLog {
  /** Writes one line for `event` with `fields` (default level `info`). Never throws. */
  event(event: LogEvent, fields?: LogFields, level?: LogLevel): void;
}

/** Options of {@link createServerLog}. */
export interface ServerLogOptions {
  format: LogFormat;
  /** Where each line goes, without its newline (default: stderr, so stdout stays free for the stdio transport). */
  write?: (line: string) => void;
  /** The clock (default `() => new Date()`). */
  now?: () => Date;
}

/**
 * What stands for an MCP session id outside the HTTP layer — in logs, as the owner of runs, sessions and skills: the
 * first 16 hex digits of its SHA-256. The id is a bearer credential, so it is never written; the tag correlates lines
 * (`printf %s "$id" | sha256sum | cut -c1-16`) and cannot be turned back into the id.
 */
export function sessionTag(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex').slice(0, 16);
}

/** The log that writes nothing: the default of the server options. */
export const silentLog: ServerLog = { event: () => undefined };

/** What hears every event of a {@link teeLog} besides the log it wraps. */
export type LogListener = (event: LogEvent, fields: LogFields, level: LogLevel) => void;

/** A log that writes each event to `log` and hands it to `listener` too (the host tells its clients that way). */
export function teeLog(log: ServerLog, listener: LogListener): ServerLog {
  return {
    event(event, fields = {}, level = 'info') {
      log.event(event, fields, level);
      try {
        listener(event, fields, level);
      } catch {
        // Telling a client must not fail the request the event describes.
      }
    },
  };
}

/** Keys every line has; a field of the same name is dropped rather than replacing one. */
const RESERVED = new Set(['time', 'level', 'event']);
/** Longest string value written; a longer one (a hostile header, tool name) is cut, ending in `…`. */
const MAX_VALUE_CHARS = 200;

/**
 * A log writing one line per event: `json` is `{"time","level","event",...fields}`; `text` is
 * `<time> <level> <event> key=value …`, a value quoted as JSON when it holds spaces, quotes, `=` or control
 * characters. Line and paragraph separators and C1 controls are escaped too, so every event stays on one line and
 * no terminal escape gets through, whatever the client sent.
 * @example
 * const log = createServerLog({ format: 'json' });
 * log.event('tool.called', { tool: 'execute', client: 'c1', request: 3, duration_ms: 12.5, ok: true });
 */
export function createServerLog(options: ServerLogOptions): ServerLog {
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  return {
    event(event, fields = {}, level = 'info') {
      const kept: [string, string | number | boolean][] = [];
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined && !RESERVED.has(key)) kept.push([key, typeof value === 'string' ? cut(value) : value]);
      }
      const time = now().toISOString();
      const line =
        options.format === 'json'
          ? json({ time, level, event, ...Object.fromEntries(kept) })
          : [time, level.padEnd(5), event, ...kept.map(([key, value]) => `${key}=${typeof value === 'string' && !plain(value) ? json(value) : String(value)}`)].join(' ');
      try {
        write(line);
      } catch {
        // A log that cannot be written (closed stderr) must not fail the request it describes.
      }
    },
  };
}

/** JSON that also escapes what `JSON.stringify` leaves raw: C1 controls and the line and paragraph separators. */
function json(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** True when `text` can stand unquoted in a text line. */
function plain(text: string): boolean {
  return text !== '' && !/[\s"=\\\p{C}]/u.test(text);
}

function cut(text: string): string {
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
