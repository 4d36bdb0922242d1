/**
 * Who owns each skill of a project (docs/definition-formats.md, "Who owns a skill"): `skills/.owners.json`, next to
 * the skills, maps a skill's name to the client that saved it, kept as a sha256 (a client id, an MCP session id, is a
 * bearer credential), and to the sha256 of the file it saved. A skill belongs to that client only while its file is
 * exactly what the client saved; any other skill (saved from the CLI or the SDK, written or edited by hand, or whose
 * record is missing or unreadable) belongs to the operator. Fail closed: a lost record makes a skill the operator's.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';

/** The file of the records, in the skills folder (not a skill: skills are `*.ts`). */
const OWNERS_FILE = '.owners.json';

/** Who a skill belongs to: the operator, or the client of the given id hash. */
export type SkillOwner = { kind: 'operator' } | { kind: 'client'; id: string };

/** One record: the hashed id of the client that saved the skill, and the sha256 of the text it saved. */
export interface OwnerRecord {
  client: string;
  sha256: string;
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
    if (isRecord(record) && typeof record.client === 'string' && typeof record.sha256 === 'string') records.set(name, { client: record.client, sha256: record.sha256 });
  }
  return records;
}

/** The owner of each skill of `texts` (name → file text) in `skillsDir`. */
export async function skillOwners(skillsDir: string, texts: ReadonlyMap<string, string>): Promise<Map<string, SkillOwner>> {
  const records = await readRecords(skillsDir);
  const owners = new Map<string, SkillOwner>();
  for (const [name, text] of texts) {
    const record = records.get(name);
    owners.set(name, record && record.sha256 === sha256(text) ? { kind: 'client', id: record.client } : { kind: 'operator' });
  }
  return owners;
}

/**
 * Records that skill `name` of `skillsDir` now holds `text`, saved by `client` (an id, hashed here), or by the operator
 * (`undefined`: the record goes), or that it was deleted (`text` undefined).
 */
export async function recordOwner(skillsDir: string, name: string, text: string | undefined, client: string | undefined): Promise<void> {
  const record = text !== undefined && client !== undefined ? { client: clientHash(client), sha256: sha256(text) } : undefined;
  await updateOwners(skillsDir, new Map([[name, record]]));
}

/**
 * Sets the record of each skill of `changes` (undefined: no record, the operator's) in `skillsDir`, keeping the others.
 * The file is replaced whole (write, rename), and only when a record changed.
 */
export async function updateOwners(skillsDir: string, changes: ReadonlyMap<string, OwnerRecord | undefined>): Promise<void> {
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
