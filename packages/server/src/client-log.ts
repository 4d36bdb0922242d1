import type { LogLevel as ConsoleLevel, RunEvent } from '@agent-spaces/capabilities';
import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { LogEvent, LogFields, LogLevel } from './log.js';

/** One `notifications/message` to a client: its RFC 5424 level, the logger and the data. */
export type ClientLogMessage = LoggingMessageNotification['params'];

/** Sends one message to a client when its level lets it through; never throws. */
export type ClientLogger = (message: ClientLogMessage) => void;

/** MCP's RFC 5424 levels, least severe first. */
const SEVERITY: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What a client of protocol 2025-11-25 gets until it sends `logging/setLevel`: `info` and above. */
export const DEFAULT_CLIENT_LOG_LEVEL: LoggingLevel = 'info';

/** The `logger` of the server's own events; the console output of runs is logged as `console`. */
const SERVER_LOGGER = 'agent-spaces';

/** The MCP level of each level of the server log. */
const SERVER_LEVEL: Record<LogLevel, LoggingLevel> = { info: 'info', warn: 'warning', error: 'error' };

/** The MCP level of each console method of agent code. */
const CONSOLE_LEVEL: Record<ConsoleLevel, LoggingLevel> = { debug: 'debug', log: 'info', info: 'info', warn: 'warning', error: 'error' };

/**
 * The server log events a client hears: `own` ones only when their `client` field is that client (its tool calls,
 * at `debug`, and its sessions), `all` ones by every client (the server's reloads, agent files, mirrored skills).
 * The others (HTTP refusals, other clients coming and going, start and stop) are the operator's.
 */
const CLIENT_EVENTS: Partial<Record<LogEvent, 'own' | 'all'>> = {
  'tool.called': 'own',
  'session.created': 'own',
  'session.ended': 'own',
  'session.restored': 'own',
  'session.transferred': 'own',
  'server.reloaded': 'all',
  'agent_files.reloaded': 'all',
  'agent_file.invalid': 'all',
  'skills.mirrored': 'all',
};

/** Whether a message at `level` passes the threshold `minimum`. */
export function passes(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum);
}

/**
 * Which clients hear a server log event: `own` (only the client its `client` field names), `all`, or undefined (none:
 * the operator's).
 */
export function serverEventAudience(event: LogEvent): 'own' | 'all' | undefined {
  return CLIENT_EVENTS[event];
}

/**
 * The message that tells a client of its audience ({@link serverEventAudience}) a server log event, or undefined when
 * the client wants messages from level `minimum` up and the event is below it (a tool call is logged at `debug`). The
 * data is `{ event, ...fields }`: ids, names, codes and figures only.
 */
export function serverEventMessage(minimum: LoggingLevel, event: LogEvent, fields: LogFields, level: LogLevel): ClientLogMessage | undefined {
  const messageLevel = event === 'tool.called' ? 'debug' : SERVER_LEVEL[level];
  if (!passes(messageLevel, minimum)) return undefined;
  const data = Object.fromEntries(Object.entries({ event, ...fields }).filter(([, value]) => value !== undefined));
  return { level: messageLevel, logger: SERVER_LOGGER, data };
}

/**
 * The message that tells the client a run event of its call, or undefined for events it hears otherwise (results,
 * progress): the run's console output (logger `console`, the line as data), a call waiting for approval (`notice`) and
 * a capability call that failed (`warning`, with its code: an upstream MCP server's failure among them).
 */
export function runEventMessage(event: RunEvent): ClientLogMessage | undefined {
  switch (event.type) {
    case 'log':
      return { level: CONSOLE_LEVEL[event.level], logger: 'console', data: event.message };
    case 'approvalRequired':
      return {
        level: 'notice',
        logger: SERVER_LOGGER,
        data: { event: 'approval.waiting', approval: event.id, capability: event.capability, function: event.function, message: event.message },
      };
    case 'capabilityResult':
      if (event.ok) return undefined;
      return {
        level: 'warning',
        logger: SERVER_LOGGER,
        data: { event: 'capability.failed', capability: event.capability, function: event.function, code: event.error?.code, message: event.error?.message },
      };
    default:
      return undefined;
  }
}
