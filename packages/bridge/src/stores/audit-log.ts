import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { AgentSpacesError, type ErrorCode } from '@agent-spaces/capabilities';

/** Params longer than this (as JSON), and approval messages longer than this, are stored cut. */
const MAX_PARAMS_CHARS = 8_192;

/** What every line of the audit log says of its call. */
interface AuditLine {
  /** When the line was written: when the call ended, or when it started waiting for approval (ISO-8601). */
  time: string;
  space: string;
  runId?: string;
  sessionId?: string;
  /** The bridge's call id (also the id of its approval request, if one was made). */
  callId: string;
  capability: string;
  function: string;
  /** Params with secrets redacted (`{ truncated: true, preview }` past 8 KiB of JSON). */
  params: unknown;
  /** Who the call was made for; absent for `local` (no principal, or `local`), so such lines read as before identities. */
  principal?: AuditPrincipal;
}

/** The principal of an audit line: its id, and its subject, client and groups when it has them (never its token). */
export interface AuditPrincipal {
  id: string;
  subject?: string;
  clientId?: string;
  groups?: string[];
}

/** The line of a capability call as it ended: one per call. */
export interface AuditCallRecord extends AuditLine {
  pending?: never;
  /** Absent when the call never reached the policy (unknown capability or function, invalid params). */
  decision?: {
    kind: 'allow' | 'deny' | 'ask';
    /** What decided: a rule (`policies.rules["crm"]`), `requiresApproval`, `default`, `toolPermission: …`, `policy`. */
    by: string;
    /** For `ask`: the answer and who gave it (`approver`, `resolve`, `timeout`, `no-approver`, `cli-prompt`, …). */
    approved?: boolean;
    answeredBy?: string;
    /** Where the answer came from (`ApprovalOutcome.from`). */
    answeredFrom?: string;
    reason?: string;
  };
  outcome: { ok: true } | { ok: false; code: ErrorCode; message: string };
  durationMs: number;
}

/**
 * The line written when a call starts waiting for a person's approval, before anyone is asked: if the host is killed
 * before the answer, the question is still on record. The call's own line follows once it ends.
 */
export interface AuditPendingRecord extends AuditLine {
  pending: 'approval';
  /** The approval request's id (`agent-spaces approvals show <id>`). */
  approvalId?: string;
  /** The rule (or setting) that asked, and the message put to the person (redacted, cut past 8 KiB). */
  decision: { kind: 'ask'; by: string; message: string };
}

/** One line of the audit log: a call as it ended, or a call that started waiting for approval (`pending`). */
export type AuditRecord = AuditCallRecord | AuditPendingRecord;

/** An {@link AuditRecord} as the bridge makes it; the log adds the space. */
export type AuditEntry = Omit<AuditCallRecord, 'space'> | Omit<AuditPendingRecord, 'space'>;

/**
 * Receives the entries of calls (one as each ends, one as each starts waiting for approval); `append` must not return
 * (or its promise resolve) before the entry is durable.
 */
export interface AuditSink {
  append(entry: AuditEntry): void | Promise<void>;
}

/** Where a space's audit log lives: `<outDir>/audit/<space>.jsonl` (rotated files beside it: `<space>.jsonl.1`, …). */
export function auditLogFile(outDir: string, space: string): string {
  checkAuditSpace(space);
  return join(outDir, 'audit', `${space}.jsonl`);
}

/** Throws `CONFIG_INVALID` for a space name no audit store holds (letters, digits, `.`, `_`, `-`; a letter or digit first). */
export function checkAuditSpace(space: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(space)) {
    throw new AgentSpacesError('CONFIG_INVALID', `The space name ${JSON.stringify(space)} cannot name an audit log (use letters, digits, . _ -)`, { space });
  }
}

/**
 * The record of `entry` in `space` as a store that keeps JSON puts it on record: params cut past 8 KiB (or marked
 * unserializable), an approval message cut past 8 KiB — what {@link AuditLog} writes.
 */
export function auditRecordOf(entry: AuditEntry, space: string): AuditRecord {
  const record = { ...entry, space, params: JSON.parse(paramsJson(entry.params)) as unknown } as AuditRecord;
  if (record.pending !== undefined && record.decision.message.length > MAX_PARAMS_CHARS) {
    record.decision = { ...record.decision, message: `${record.decision.message.slice(0, MAX_PARAMS_CHARS)}…` };
  }
  return record;
}

/**
 * Size-based rotation of an audit log: once the file would pass `maxBytes`, it is renamed `<file>.1` (older ones
 * shift to `.2`, … and the one past `keep` is deleted) and a new file is started.
 */
export interface AuditRotation {
  /** Size at which the file is rotated (default 64 MiB). */
  maxBytes: number;
  /** Rotated files kept (default 4): at most `(keep + 1) × maxBytes` on disk. */
  keep: number;
}

/** The rotation of `policies.audit` when it sets none. */
export const DEFAULT_AUDIT_ROTATION: AuditRotation = { maxBytes: 64 * 1024 * 1024, keep: 4 };

/** The files of the log `file` that exist, oldest first: `<file>.<keep>`, …, `<file>.1`, `<file>`. */
export function auditLogFiles(file: string): string[] {
  const rotated: string[] = [];
  for (let n = 1; existsSync(`${file}.${n}`); n++) rotated.unshift(`${file}.${n}`);
  return existsSync(file) ? [...rotated, file] : rotated;
}

/** How often an open log checks that its path still names its file (another process may have rotated it). */
const REOPEN_CHECK_MS = 1_000;
/** A rotation lock older than this was left by a process that died while rotating. */
const STALE_LOCK_MS = 30_000;

/**
 * An append-only JSON Lines file. Each record is one `write` of a whole line on a descriptor opened for appending:
 * when `append` returns, the line is in the kernel's hands, so a `kill -9` of the host loses no completed call. The
 * kill can stop a write part-way (Linux checks for it before copying each page of the file), leaving a partial last
 * line of a call that never completed; opening the log removes it, so it never runs into the next line. With
 * `fsync: true` each line is also flushed to the disk (it then survives power loss too, at about 0.2 ms per call:
 * bench/policies.mjs). The file is rotated by size ({@link AuditRotation}); processes sharing a log rotate it under a
 * lock file, and each notices within a second when another has rotated it.
 */
export class AuditLog implements AuditSink {
  #fd: number | undefined;
  /** This file's size as far as this process knows (its own writes added); checked before a rotation. */
  #size = 0;
  #checkedAt = 0;
  readonly #fsync: boolean;
  readonly #rotation: AuditRotation | undefined;
  readonly #spaceJson: string;
  readonly #quoted = quoter();

  /** Opens (creating folder and file as needed) `file` for appending the records of `space`; `rotation: false` never rotates. */
  constructor(
    readonly file: string,
    readonly space: string,
    options: { fsync?: boolean; rotation?: AuditRotation | false } = {},
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.#fsync = options.fsync ?? false;
    this.#rotation = options.rotation === false ? undefined : (options.rotation ?? DEFAULT_AUDIT_ROTATION);
    this.#spaceJson = JSON.stringify(space);
    this.#open();
  }

  /** Writes `entry` as one line (and flushes it to disk with `fsync`). Throws when the log is closed or the write fails. */
  append(entry: AuditEntry): void {
    if (this.#fd === undefined) throw new AgentSpacesError('INTERNAL', `The audit log ${this.file} is closed`);
    const line = this.#serialize(entry);
    const bytes = Buffer.byteLength(line);
    if (this.#rotation) this.#beforeWrite(bytes, this.#rotation);
    // One write of the whole line; the rest is written only if the kernel took part of it (it does not for files).
    const written = writeSync(this.#fd, line);
    if (written < bytes) {
      const buffer = Buffer.from(line);
      for (let at = written; at < buffer.length; ) at += writeSync(this.#fd, buffer, at, buffer.length - at);
    }
    this.#size += bytes;
    if (this.#fsync) fsyncSync(this.#fd);
  }

  #open(): void {
    this.#fd = openSync(this.file, 'a+', 0o600);
    dropPartialLine(this.#fd);
    this.#size = fstatSync(this.#fd).size;
    this.#checkedAt = Date.now();
  }

  /** Moves to the file now at the path when another process rotated it, and rotates when this line would pass the size. */
  #beforeWrite(bytes: number, rotation: AuditRotation): void {
    const now = Date.now();
    if (now - this.#checkedAt >= REOPEN_CHECK_MS) {
      this.#checkedAt = now;
      if (!this.#isCurrent()) this.#reopen();
    }
    if (this.#size + bytes <= rotation.maxBytes || this.#size === 0) return;
    this.#size = fstatSync(this.#fd!).size;
    if (this.#size + bytes <= rotation.maxBytes || this.#size === 0) return;
    this.#rotate(rotation);
  }

  /** True while the path still names the file this log writes to. */
  #isCurrent(): boolean {
    try {
      return statSync(this.file).ino === fstatSync(this.#fd!).ino;
    } catch {
      return false;
    }
  }

  #reopen(): void {
    closeSync(this.#fd!);
    this.#fd = undefined;
    this.#open();
  }

  /** Renames the file to `.1` (shifting older ones), under a lock file so two processes never rotate at once. */
  #rotate(rotation: AuditRotation): void {
    const lock = `${this.file}.rotating`;
    if (!takeLock(lock)) return; // another process rotates it: this one follows at its next check
    try {
      if (this.#isCurrent()) {
        if (rotation.keep === 0) unlinkSync(this.file);
        for (let n = rotation.keep; n >= 1; n--) {
          const from = n === 1 ? this.file : `${this.file}.${n - 1}`;
          if (existsSync(from)) renameSync(from, `${this.file}.${n}`);
        }
      }
      this.#reopen();
    } finally {
      unlinkSync(lock);
    }
  }

  /**
   * The JSON line of an {@link AuditRecord}, keys in its order, written out directly: one is made per call. Strings
   * that repeat from call to call (the time within a millisecond, the run, the capability and function) are quoted
   * once, through {@link quoted}.
   */
  #serialize(entry: AuditEntry): string {
    const q = this.#quoted;
    let line = `{"time":${q(entry.time)},"space":${this.#spaceJson}`;
    if (entry.runId !== undefined) line += `,"runId":${q(entry.runId)}`;
    if (entry.sessionId !== undefined) line += `,"sessionId":${q(entry.sessionId)}`;
    if (entry.principal !== undefined) line += `,"principal":${JSON.stringify(entry.principal)}`;
    line += `,"callId":${JSON.stringify(entry.callId)},"capability":${q(entry.capability)}`;
    line += `,"function":${q(entry.function)},"params":${paramsJson(entry.params)}`;
    if (entry.pending !== undefined) {
      const { kind, by, message } = entry.decision;
      const shown = message.length > MAX_PARAMS_CHARS ? `${message.slice(0, MAX_PARAMS_CHARS)}…` : message;
      return `${line},"pending":"approval","decision":${JSON.stringify({ kind, by, message: shown })}}\n`;
    }
    if (entry.decision !== undefined) line += `,"decision":${JSON.stringify(entry.decision)}`;
    return `${line},"outcome":${JSON.stringify(entry.outcome)},"durationMs":${JSON.stringify(entry.durationMs)}}\n`;
  }

  /** Closes the file; later appends throw. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

let lastMs = 0;
let lastIso = '';

/** `new Date().toISOString()`, formatted once per millisecond: audit lines and run events are stamped by the thousand. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** Cuts a partial last line (one not ended by a newline) off the file open as `fd`. */
function dropPartialLine(fd: number): void {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(Math.min(size, 4096));
  let keep = 0;
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const newline = chunk.subarray(0, readSync(fd, chunk, 0, end - start, start)).lastIndexOf(0x0a);
    if (newline !== -1) {
      keep = start + newline + 1;
      break;
    }
    end = start;
  }
  // Unless another process has appended since: then the tail was its line, still being written.
  if (keep < size && fstatSync(fd).size === size) ftruncateSync(fd, keep);
}

/** Creates `lock` exclusively; a lock older than {@link STALE_LOCK_MS} is taken over. False when another holds it. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(lock, 'wx'));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return false;
        unlinkSync(lock);
      } catch {
        // removed meanwhile: try again
      }
    }
  }
  return false;
}

/** `JSON.stringify` of strings, remembering the last few: audit lines repeat most of theirs. */
function quoter(): (text: string) => string {
  const recent = new Map<string, string>();
  return (text) => {
    let json = recent.get(text);
    if (json === undefined) {
      if (recent.size >= 16) recent.clear();
      json = JSON.stringify(text);
      recent.set(text, json);
    }
    return json;
  };
}

/** Params as JSON: `{ truncated: true, preview }` past 8 KiB, `{ unserializable: true }` when JSON cannot hold them. */
function paramsJson(params: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(params);
  } catch {
    return '{"unserializable":true}';
  }
  if (text === undefined) return 'null';
  return text.length > MAX_PARAMS_CHARS ? JSON.stringify({ truncated: true, preview: text.slice(0, MAX_PARAMS_CHARS) }) : text;
}
