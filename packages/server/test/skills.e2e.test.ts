import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from '@agent-spaces/sdk';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

// Typed skills over MCP (official SDK client, in-memory transport): save_skill, a later script importing the skill with
// typechecked arguments, search, list_skills, delete_skill, and a skill broken by a capability change.

let project: TestProject;
let client: Client;

const MORNING = `import { trainSchedule } from '@capabilities/trains';

/** The destinations of the trains leaving a station before noon. */
export async function morningTrains(params: { station: string }): Promise<string[]> {
  const trips = await trainSchedule.getSchedule({ station: params.station });
  return trips.filter((t) => t.hour < 12).map((t) => t.destination);
}
`;

beforeAll(async () => {
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }) });
  client = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir: project.rootDir, handlers: project.handlers } }));
});

afterAll(async () => {
  await client?.close();
  await project?.cleanup();
});

describe('skills over MCP', () => {
  it('save_skill keeps a typechecked function that a later script imports and calls with typechecked arguments', async () => {
    const saved = await callTool(client, 'save_skill', { name: 'morningTrains', code: MORNING });
    expect(saved.isError).toBe(false);
    expect(saved.body).toMatchObject({
      name: 'morningTrains',
      file: 'skills/morningTrains.ts',
      signature: 'skills.morningTrains(params: { station: string }): Promise<string[]>',
      import: "import { skills } from '@capabilities/skills';",
    });
    expect(await readFile(join(project.rootDir, 'skills/morningTrains.ts'), 'utf8')).toBe(MORNING);

    const run = await callTool(client, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.morningTrains({ station: 'North' });" });
    expect(run.isError).toBe(false);
    expect(run.body).toMatchObject({ result: ['South'], metadata: { capability_calls: 1 } });

    const wrong = await callTool(client, 'execute', { code: "import { skills } from '@capabilities/skills';\n\nreturn skills.morningTrains({ station: 7 });" });
    expect(wrong.isError).toBe(true);
    expect(wrong.body.code).toBe('TYPE_ERROR');
    expect(wrong.text).toMatch(/agent\.ts:3/);
    expect(wrong.body.message).toContain('skills.morningTrains is declared as:\n  skills.morningTrains(params: { station: string }): Promise<string[]>');

    const found = await callTool(client, 'search_capabilities', { query: 'morning trains leaving before noon' });
    expect(found.text).toContain('skills.morningTrains(params: { station: string }): Promise<string[]>');
  }, 60_000);

  it('writes skills/tsconfig.json, under which TypeScript (an editor, tsc) accepts the saved skill and refuses a misuse', async () => {
    const config = join(project.rootDir, 'skills/tsconfig.json');
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] });
    const errors = () => {
      const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
      const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
      return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName.slice(project.rootDir.length + 1)}: TS${d.code}`);
    };
    expect(errors()).toEqual([]);
    const skill = join(project.rootDir, 'skills/morningTrains.ts');
    await writeFile(skill, MORNING.replace('station: params.station', 'station: 7'));
    try {
      expect(errors()).toEqual(['skills/morningTrains.ts: TS2322']);
    } finally {
      await writeFile(skill, MORNING);
    }
    // A tsconfig of the project's own stays as it is.
    await writeFile(config, '{ "extends": "../.agent-spaces/tsconfig.json", "include": ["*.ts"], "compilerOptions": { "noUnusedLocals": true } }\n');
    const other = '/** Adds one. */\nexport async function plusOne(params: { n: number }): Promise<number> {\n  return params.n + 1;\n}\n';
    const saved = await callTool(client, 'save_skill', { name: 'plusOne', code: other });
    expect(saved.isError, saved.text).toBe(false);
    expect(await readFile(config, 'utf8')).toContain('noUnusedLocals');
    expect((await callTool(client, 'delete_skill', { name: 'plusOne' })).isError).toBe(false);
  }, 60_000);

  it('refuses a bad name, an existing skill without replace, and code that does not typecheck, writing nothing', async () => {
    for (const name of ['Bad', '../escape', 'a-b', '1x', 'x'.repeat(65), '', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'then', 'delete']) {
      const answer = await callTool(client, 'save_skill', { name, code: MORNING });
      expect(answer.isError).toBe(true);
      expect(answer.body).toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/^name: /) });
    }
    for (const code of ['', '   ', 'x'.repeat(256 * 1024 + 1)]) {
      const answer = await callTool(client, 'save_skill', { name: 'fine', code });
      expect(answer.body).toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/^code: /) });
    }
    const again = await callTool(client, 'save_skill', { name: 'morningTrains', code: MORNING });
    expect(again.body).toMatchObject({ code: 'NAME_COLLISION', message: expect.stringContaining('replace: true') });
    const typo = await callTool(client, 'save_skill', { name: 'broken', code: MORNING.replace('morningTrains', 'broken').replace('{ station: params.station }', '{ stationName: params.station }') });
    expect(typo.body).toMatchObject({ code: 'TYPE_ERROR', message: expect.stringMatching(/^skill "broken" does not typecheck against the current capabilities: skills\/broken\.ts:5:/) });
    const shape = await callTool(client, 'save_skill', { name: 'shapeless', code: 'export const shapeless = 1;\n' });
    expect(shape.body).toMatchObject({ code: 'INVALID_DEFINITION', message: expect.stringContaining('must export one async function shapeless') });
    expect(existsSync(join(project.rootDir, 'skills/broken.ts')) || existsSync(join(project.rootDir, 'skills/shapeless.ts'))).toBe(false);
  }, 60_000);

  it('replace: true overwrites; a description becomes the doc comment of code without one', async () => {
    const code = 'export async function twice(params: { n: number }): Promise<number> {\n  return params.n * 2;\n}\n';
    expect((await callTool(client, 'save_skill', { name: 'twice', code, description: 'Doubles n.' })).isError).toBe(false);
    const replaced = await callTool(client, 'save_skill', { name: 'twice', code: code.replace('* 2', '* 3'), description: 'Triples n.', replace: true });
    expect(replaced.body.signature).toBe('skills.twice(params: { n: number }): Promise<number>');
    expect(await readFile(join(project.rootDir, 'skills/twice.ts'), 'utf8')).toBe(`/**\n * Triples n.\n */\n${code.replace('* 2', '* 3')}`);
    expect((await callTool(client, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.twice({ n: 2 });" })).body.result).toBe(6);
    // A description cannot close the doc comment early and inject code.
    const sneaky = await callTool(client, 'save_skill', { name: 'sneaky', code: code.replace('twice', 'sneaky'), description: 'Ends */ globalThis.x = 1; /* here' });
    expect(sneaky.isError).toBe(false);
    expect(await readFile(join(project.rootDir, 'skills/sneaky.ts'), 'utf8')).toMatch(/^\/\*\*\n \* Ends \*\\\/ globalThis\.x = 1; \/\* here\n \*\/\nexport async function sneaky/);
    expect((await callTool(client, 'delete_skill', { name: 'sneaky' })).isError).toBe(false);
  }, 60_000);

  it('list_skills lists them; a skill broken by a capability change is listed as not built; delete_skill removes one', async () => {
    const listed = await callTool(client, 'list_skills');
    expect(listed.body.skills).toEqual([
      { name: 'morningTrains', file: 'skills/morningTrains.ts', built: true, signature: 'skills.morningTrains(params: { station: string }): Promise<string[]>', summary: 'The destinations of the trains leaving a station before noon.', owner: 'client', shared: 'space', yours: true },
      { name: 'twice', file: 'skills/twice.ts', built: true, signature: 'skills.twice(params: { n: number }): Promise<number>', summary: 'Triples n.', owner: 'client', shared: 'space', yours: true },
    ]);

    const trains = join(project.rootDir, 'capabilities/trains.json');
    const definition = await readFile(trains, 'utf8');
    await writeFile(trains, definition.replace('"station"', '"stop"'));
    const report = await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
    expect(report.capabilities.filter((c) => c.status === 'failed').map((c) => [c.file, c.diagnostics[0]!.message])).toEqual([
      ['skills/morningTrains.ts', expect.stringMatching(/^skill "morningTrains" does not typecheck against the current capabilities: skills\/morningTrains\.ts:5:\d+ TS2353/)],
    ]);
    expect((await callTool(client, 'list_skills')).body.skills.map((s: { name: string; built: boolean }) => [s.name, s.built])).toEqual([
      ['morningTrains', false],
      ['twice', true],
    ]);

    expect((await callTool(client, 'delete_skill', { name: 'morningTrains' })).body).toEqual({ deleted: 'morningTrains', file: 'skills/morningTrains.ts' });
    expect(existsSync(join(project.rootDir, 'skills/morningTrains.ts'))).toBe(false);
    const missing = await callTool(client, 'delete_skill', { name: 'morningTrains' });
    expect(missing.body).toMatchObject({ code: 'INVALID_ARGUMENTS', message: 'name: no skill "morningTrains" (skills: twice)' });
    expect((await callTool(client, 'delete_skill', { name: 'twice' })).isError).toBe(false);
    const gone = await callTool(client, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.twice({ n: 1 });" });
    expect(gone.isError).toBe(true);
    expect((await callTool(client, 'list_skills')).body.skills).toEqual([]);
  }, 60_000);
});

describe('skills of a server with its own config file and output folder (mcp serve --config F --out DIR)', () => {
  it('save_skill and delete_skill rebuild from that config into that folder, which the server reads', async () => {
    const own = await createProject({ 'own.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }) });
    const outDir = join(own.rootDir, 'out');
    await buildCapabilities({ rootDir: own.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS, outDir });
    const server = createCodeModeServer({
      spaces: [{ id: 'trains', name: 'Trains' }],
      space: { rootDir: own.rootDir, outDir: 'out', handlers: own.handlers },
      configFile: join(own.rootDir, 'own.config.json'),
    });
    const ownClient = await connectInMemory(server);
    try {
      const saved = await callTool(ownClient, 'save_skill', { name: 'morningTrains', code: MORNING });
      expect(saved.isError, saved.text).toBe(false);
      expect((await callTool(ownClient, 'list_skills')).body.skills.map((s: { name: string; built: boolean }) => [s.name, s.built])).toEqual([['morningTrains', true]]);
      const run = await callTool(ownClient, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.morningTrains({ station: 'North' });" });
      expect(run.body).toMatchObject({ result: ['South'] });
      expect([existsSync(join(outDir, 'capabilities/skills')), existsSync(join(own.outDir, 'capabilities/skills'))]).toEqual([true, false]);

      expect((await callTool(ownClient, 'delete_skill', { name: 'morningTrains' })).isError).toBe(false);
      const gone = await callTool(ownClient, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.morningTrains({ station: 'North' });" });
      expect(gone.isError).toBe(true);
    } finally {
      await ownClient.close();
      await own.cleanup();
    }
  }, 60_000);
});
