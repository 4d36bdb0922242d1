/**
 * Reading audit logs of any size: from the end for the recent calls a new space needs (its rate limits' windows), so
 * its start-up cost follows the window, not the log; from the start, line by line, for `agent-spaces audit`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { auditLogFiles, type AuditCallRecord, type AuditRecord } from './audit-log.js';

/** Bytes read at a time from the end of a log. */
const CHUNK = 256 * 1024;
/**
 * Lines are in the order their calls ended; reading back stops at the first record this much older than `since`, so
 * that lines written by processes sharing a log, slightly out of order, are still found.
 */
const ORDER_SLACK_MS = 60_000;

/** What reading a log found: its ended calls, oldest first, and how many lines could not be parsed. */
export interface AuditRead {
  records: AuditCallRecord[];
  malformed: number;
}

/**
 * The ended calls of the audit log `file` and its rotated files, oldest first (lines of calls that started waiting
 * for approval are skipped: the call's own line says how it ended); with `since`, only those at or after it, read
 * from the end so that only the lines of that window (and a minute more) are read and parsed. A log that does not
 * exist has none; one that cannot be read throws `SOURCE_UNREADABLE`.
 */
export function readAuditLog(file: string, options: { since?: Date } = {}): AuditRead {
  const since = options.since?.getTime() ?? -Infinity;
  const records: AuditCallRecord[] = [];
  let malformed = 0;
  read: for (const path of auditLogFiles(file).reverse()) {
    for (const line of linesFromEnd(path)) {
      const record = line === OVERLONG ? undefined : parse(line);
      if (!record) {
        malformed++;
        continue;
      }
      const time = Date.parse(record.time);
      if (time < since - ORDER_SLACK_MS) break read;
      if (!(time < since) && record.pending === undefined) records.push(record);
    }
  }
  return { records: records.reverse(), malformed };
}

/**
 * The records of each log in `files` (each with its rotated files), oldest first, read line by line whatever their
 * size, `pending` lines included; several logs are merged by time. `onMalformed` hears of each line that does not parse.
 */
export async function* streamAuditLogs(files: readonly string[], options: { since?: Date; onMalformed?: () => void } = {}): AsyncGenerator<AuditRecord> {
  const since = options.since?.getTime() ?? -Infinity;
  const streams = files.map((file) => recordsOf(auditLogFiles(file), since, options.onMalformed));
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  for (;;) {
    let next = -1;
    for (const [index, head] of heads.entries()) {
      if (!head.done && (next === -1 || head.value.time < (heads[next]!.value as AuditRecord).time)) next = index;
    }
    if (next === -1) return;
    yield heads[next]!.value as AuditRecord;
    heads[next] = await streams[next]!.next();
  }
}

async function* recordsOf(paths: readonly string[], since: number, onMalformed: (() => void) | undefined): AsyncGenerator<AuditRecord> {
  for (const path of paths) {
    for await (const line of linesOf(path)) {
      const record = line === OVERLONG ? undefined : parse(line);
      if (!record) onMalformed?.();
      else if (!(Date.parse(record.time) < since)) yield record;
    }
  }
}

/** Stands for a line longer than {@link MAX_LINE}, skipped without being held in memory (a corrupt or foreign file). */
const OVERLONG = Symbol('overlong line');
/** Longer lines are not audit records (params are cut at 8 KiB). */
const MAX_LINE = 4 * 1024 * 1024;

/** The lines of `path`, first first (empty lines skipped), read a chunk at a time into one buffer. */
async function* linesOf(path: string): AsyncGenerator<string | typeof OVERLONG> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unreadable(path, error);
  }
  const buffer = Buffer.allocUnsafe(CHUNK);
  let carry = Buffer.alloc(0);
  let overlong = false;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null).catch((error: unknown) => {
        throw unreadable(path, error);
      });
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        if (overlong) yield OVERLONG;
        else if (carry.length + newline - start > 0) yield Buffer.concat([carry, chunk.subarray(start, newline)]).toString('utf8');
        [carry, overlong, start] = [Buffer.alloc(0), false, newline + 1];
      }
      // Copied: the buffer is read into again.
      if (!overlong) carry = Buffer.concat([carry, chunk.subarray(start)]);
      if (carry.length > MAX_LINE) [carry, overlong] = [Buffer.alloc(0), true];
    }
  } finally {
    await handle.close();
  }
  if (overlong) yield OVERLONG;
  else if (carry.length > 0) yield carry.toString('utf8');
}

/** The lines of `path`, last first (empty lines skipped), read backwards a chunk at a time. */
function* linesFromEnd(path: string): Generator<string | typeof OVERLONG> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unreadable(path, error);
  }
  try {
    // A file another process appends to: its lines up to now.
    let end = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    let overlong = false;
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const chunk = Buffer.allocUnsafe(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      const data = carry.length === 0 ? chunk : Buffer.concat([chunk, carry]);
      let stop = data.length;
      for (let newline = data.lastIndexOf(0x0a, stop - 1); stop > 0 && newline !== -1; newline = stop > 0 ? data.lastIndexOf(0x0a, stop - 1) : -1) {
        // With `overlong`, the text after this newline is the start of the line being skipped.
        if (overlong) yield OVERLONG;
        else if (newline + 1 < stop) yield data.toString('utf8', newline + 1, stop);
        [overlong, stop] = [false, newline];
      }
      carry = overlong ? carry : Buffer.from(data.subarray(0, stop));
      if (carry.length > MAX_LINE) [carry, overlong] = [Buffer.alloc(0), true];
      end = start;
    }
    if (overlong) yield OVERLONG;
    else if (carry.length > 0) yield carry.toString('utf8');
  } catch (error) {
    throw error instanceof AgentSpacesError ? error : unreadable(path, error);
  } finally {
    closeSync(fd);
  }
}

function parse(line: string): AuditRecord | undefined {
  try {
    const record = JSON.parse(line) as AuditRecord;
    return typeof record === 'object' && record !== null && typeof record.time === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

function unreadable(path: string, error: unknown): AgentSpacesError {
  return new AgentSpacesError('SOURCE_UNREADABLE', `Cannot read the audit log ${path}: ${(error as Error).message}`, { file: path });
}
