/**
 * Who owns each skill of a project (docs/definition-formats.md, "Who owns a skill"): `skills/.owners.json`, next to
 * the skills, maps a skill's name to the client that saved it, kept as a sha256 (a client id, an MCP session id, is a
 * bearer credential), and to the sha256 of the file it saved. A skill belongs to that client only while its file is
 * exactly what the client saved; any other skill (saved from the CLI or the SDK, written or edited by hand, or whose
 * record is missing or unreadable) belongs to the operator. Fail closed: a lost record makes a skill the operator's.
 */
import { createHash } from 'node:crypto';
import { open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';
import { readShare, type RecordedShare, type SkillOwner } from './skill-shares.js';

/** The file of the records, in the skills folder (not a skill: skills are `*.ts`). */
const OWNERS_FILE = '.owners.json';
/**
 * How long a process waits for another's update of the records (processes that share the folder, e.g. `mcp serve`
 * replicas on one project), and after how long a lock no process released counts as left by a dead one.
 */
const LOCK_WAIT_MS = 10_000;
const STALE_LOCK_MS = 10_000;

/**
 * One record: the hashed id of the client that saved the skill, the sha256 of the text it saved, and with whom the
 * client shares it (absent: the space).
 */
export interface OwnerRecord {
  client: string;
  sha256: string;
  share?: RecordedShare;
}

/**
 * What changes whenever a skill or an owner record of `skillsDir` is added, removed or recorded anew: the folder's
 * and the records file's inode, size and modification time (records are replaced whole, so each change is a new inode).
 */
export async function recordsStamp(skillsDir: string): Promise<string> {
  return (await Promise.all([skillsDir, join(skillsDir, OWNERS_FILE)].map(fileStamp))).join('|');
}

/** `path`'s inode, size and modification time (ns), or `-` when it does not exist. */
export async function fileStamp(path: string): Promise<string> {
  const stats = await stat(path, { bigint: true }).catch(() => undefined);
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}` : '-';
}

/** The sha256 (hex) of a skill's text, as its owner record keeps it. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The hash a client id is recorded as. */
export const clientHash = (client: string): string => sha256(`agent-spaces skill owner\0${client}`);

async function readRecords(skillsDir: string): Promise<Map<string, OwnerRecord>> {
  const json: unknown = await readFile(join(skillsDir, OWNERS_FILE), 'utf8').then(JSON.parse, () => undefined);
  const records = new Map<string, OwnerRecord>();
  if (!isRecord(json)) return records;
  for (const [name, record] of Object.entries(json)) {
    if (!isRecord(record) || typeof record.client !== 'string' || typeof record.sha256 !== 'string') continue;
    const share = readShare(record.share);
    records.set(name, { client: record.client, sha256: record.sha256, ...(share ? { share } : {}) });
  }
  return records;
}

/** The owner of each skill of `texts` (name → file text) in `skillsDir`. */
export async function skillOwners(skillsDir: string, texts: ReadonlyMap<string, string>): Promise<Map<string, SkillOwner>> {
  const records = await readRecords(skillsDir);
  const owners = new Map<string, SkillOwner>();
  for (const [name, text] of texts) {
    const record = records.get(name);
    const current = record && record.sha256 === sha256(text);
    owners.set(name, current ? { kind: 'client', id: record.client, ...(record.share ? { share: record.share } : {}) } : { kind: 'operator' });
  }
  return owners;
}

/**
 * Records that skill `name` of `skillsDir` now holds `text`, saved by `client` (an id, hashed here) who shares it as
 * `share` (absent: with the space), or by the operator (`undefined`: the record goes), or that it was deleted (`text`
 * undefined).
 */
export async function recordOwner(skillsDir: string, name: string, text: string | undefined, client: string | undefined, share?: RecordedShare): Promise<void> {
  const record = text !== undefined && client !== undefined ? { client: clientHash(client), sha256: sha256(text), ...(share ? { share } : {}) } : undefined;
  await updateOwners(skillsDir, new Map([[name, record]]));
}

/**
 * Sets the record of each skill of `changes` (undefined: no record, the operator's) in `skillsDir`, keeping the others.
 * The file is replaced whole (write, rename), and only when a record changed.
 */
export async function updateOwners(skillsDir: string, changes: ReadonlyMap<string, OwnerRecord | undefined>): Promise<void> {
  await whileLocked(join(skillsDir, `${OWNERS_FILE}.lock`), () => writeChanges(skillsDir, changes));
}

async function writeChanges(skillsDir: string, changes: ReadonlyMap<string, OwnerRecord | undefined>): Promise<void> {
  const records = await readRecords(skillsDir);
  const before = JSON.stringify([...records]);
  for (const [name, record] of changes) {
    if (record) records.set(name, record);
    else records.delete(name);
  }
  if (JSON.stringify([...records]) === before) return;
  const file = join(skillsDir, OWNERS_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(Object.fromEntries([...records].sort(([a], [b]) => (a < b ? -1 : 1))), null, 2)}\n`);
  await rename(temporary, file);
}

/**
 * Runs `update` holding the lock file `lock` (created exclusively), so that processes sharing the folder update the
 * records one at a time and none overwrites another's change with a stale read. A lock older than
 * {@link STALE_LOCK_MS} is taken over; past {@link LOCK_WAIT_MS} of waiting the update fails.
 */
async function whileLocked(lock: string, update: () => Promise<void>): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await (await open(lock, 'wx')).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
      else if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`the skill owner records are locked by another process (${lock})`);
      else await delay(5 + Math.random() * 20);
    }
  }
  try {
    await update();
  } finally {
    await unlink(lock).catch(() => undefined);
  }
}
