// A skill's share across replicas (issue 29): saved through one copy of a project with the skills kept in a real
// PostgreSQL (`agent_spaces_skills.share`), it is mirrored into another copy with its share, so every replica hides a
// user's private skill from the same principals, and a changed share reaches them too.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SharedDatabase } from '@agent-spaces/bridge/shared';
import { hiddenSkills, listSkills, mirrorSkills, saveSkill } from '@agent-spaces/sdk';
import { PostgresSkillRecords } from '../src/skills/postgres.js';
import { startPostgres, type PostgresServer } from '../../../test/services/postgres.js';
import { createProject, type TestProject } from './support/project.js';

const answer = (name: string) => `/** Answers. */\nexport async function ${name}(): Promise<string> {\n  return '${name}';\n}\n`;
const CONFIG = { 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }) };

let postgres: PostgresServer;
let database: SharedDatabase;
let copies: TestProject[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  database = await SharedDatabase.open(await postgres.createDatabase(), { connectTimeoutMs: 2_000 });
  copies = [await createProject(CONFIG), await createProject(CONFIG)];
}, 120_000);

afterAll(async () => {
  await database?.close();
  await postgres?.close();
  for (const copy of copies) await copy.cleanup();
}, 60_000);

it('keeps the share in PostgreSQL and mirrors it, so another replica hides the skill from the same principals', async () => {
  const records = new PostgresSkillRecords(database);
  const [a, b] = copies as [TestProject, TestProject];
  const alice = { owner: 'user:alice', groups: ['eng'] };
  await saveSkill({ rootDir: a.rootDir, records, ...alice, name: 'teamOnly', code: answer('teamOnly'), share: { groups: ['eng', 'eng'] } });
  await saveSkill({ rootDir: a.rootDir, records, ...alice, name: 'mine', code: answer('mine'), defaultShare: 'private' });
  expect(await records.all()).toEqual([
    expect.objectContaining({ name: 'mine', share: 'private', deleted: false }),
    expect.objectContaining({ name: 'teamOnly', share: { groups: ['eng'] }, deleted: false }),
  ]);

  const mirror = async () => mirrorSkills({ rootDir: b.rootDir }, await records.all(), (names) => records.texts(names));
  expect((await mirror()).sort()).toEqual(['mine', 'teamOnly']);
  expect(JSON.parse(await readFile(join(b.rootDir, 'skills/.owners.json'), 'utf8'))).toMatchObject({ mine: { share: 'private' }, teamOnly: { share: { groups: ['eng'] } } });
  expect(await hiddenSkills({ rootDir: b.rootDir, owner: 'user:bob', groups: ['eng'] })).toEqual(['mine']);
  expect(await hiddenSkills({ rootDir: b.rootDir, owner: 'user:carol', groups: [] })).toEqual(['mine', 'teamOnly']);
  expect(await hiddenSkills({ rootDir: b.rootDir, ...alice })).toEqual([]);
  expect(await listSkills({ rootDir: b.rootDir, ...alice })).toContainEqual(expect.objectContaining({ name: 'mine', shared: 'private', yours: true }));

  // Shared with the space through replica B: replica A's copy follows, and keeps nothing of the old share.
  await saveSkill({ rootDir: b.rootDir, records, ...alice, name: 'mine', code: answer('mine'), replace: true, share: 'space' });
  await mirrorSkills({ rootDir: a.rootDir }, await records.all(), (names) => records.texts(names));
  expect(await hiddenSkills({ rootDir: a.rootDir, owner: 'user:carol', groups: [] })).toEqual(['teamOnly']);
  const [row] = await database.query<{ share: unknown }>("SELECT share FROM agent_spaces_skills WHERE name = 'mine'");
  expect(row?.share).toBeNull();
}, 120_000);
