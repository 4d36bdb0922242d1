// Skills with owners, isolated from each other (issue 25, item 4), over the real `mcp serve` (official SDK clients,
// Streamable HTTP): a skill belongs to the client that saved it; another client, or any client for the operator's
// skills, gets SKILL_NOT_OWNED and changes nothing. Ownership is kept next to the skills, hashed, across restarts.
// A skill that fails the build fails alone; names that are no plain identifiers or are members of every object are
// refused; saving checks what the build checks.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from '@agent-spaces/sdk';
import { callTool } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { McpServe } from '../../../test/fixtures/mcp-serve.js';

/** A skill `name` answering `value`. */
const answer = (name: string, value: string) => `/** Answers ${value}. */\nexport async function ${name}(): Promise<string> {\n  return '${value}';\n}\n`;
const call = (name: string) => ({ code: `import { skills } from '@capabilities/skills';\nreturn skills.${name}();` });

let project: TestProject;
let server: McpServe;
let alice: Client;
let bob: Client;

const skillText = (name: string) => readFile(join(project.rootDir, `skills/${name}.ts`), 'utf8');

beforeAll(async () => {
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }), 'skills/operatorSkill.ts': answer('operatorSkill', 'operator') });
  await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
  server = new McpServe(project.rootDir);
  [alice, bob] = [await server.connect(), await server.connect()];
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await project?.cleanup();
}, 120_000);

describe('a skill belongs to the client that saved it', () => {
  it("refuses another client's replace and delete with SKILL_NOT_OWNED, changing nothing; its owner may", async () => {
    expect((await callTool(alice, 'save_skill', { name: 'greeting', code: answer('greeting', 'alice') })).isError).toBe(false);
    for (const args of [{ replace: true }, {}]) {
      const replaced = await callTool(bob, 'save_skill', { name: 'greeting', code: answer('greeting', 'bob'), ...args });
      expect(replaced.body).toMatchObject({ code: 'SKILL_NOT_OWNED', message: expect.stringContaining('skill "greeting" belongs to another client'), data: { name: 'greeting' } });
    }
    expect((await callTool(bob, 'delete_skill', { name: 'greeting' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect(await skillText('greeting')).toBe(answer('greeting', 'alice'));
    // Bob may still call it: it runs Alice's code, under Alice's name.
    expect((await callTool(bob, 'execute', call('greeting'))).body.result).toBe('alice');
    expect((await callTool(bob, 'list_skills')).body.skills.find((s: { name: string }) => s.name === 'greeting')).toMatchObject({ owner: 'client', yours: false });
    expect((await callTool(alice, 'list_skills')).body.skills.find((s: { name: string }) => s.name === 'greeting')).toMatchObject({ owner: 'client', yours: true });

    expect((await callTool(alice, 'save_skill', { name: 'greeting', code: answer('greeting', 'alice 2'), replace: true })).isError).toBe(false);
    expect((await callTool(bob, 'execute', call('greeting'))).body.result).toBe('alice 2');
    expect((await callTool(alice, 'delete_skill', { name: 'greeting' })).isError).toBe(false);
    expect(existsSync(join(project.rootDir, 'skills/greeting.ts'))).toBe(false);
    // Gone, the name is free: Bob's now.
    expect((await callTool(bob, 'save_skill', { name: 'greeting', code: answer('greeting', 'bob') })).isError).toBe(false);
    expect((await callTool(alice, 'delete_skill', { name: 'greeting' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect((await callTool(bob, 'delete_skill', { name: 'greeting' })).isError).toBe(false);
  }, 90_000);

  it("refuses every client's replace and delete of the operator's skills: written by hand, or edited by hand", async () => {
    for (const client of [alice, bob]) {
      const replaced = await callTool(client, 'save_skill', { name: 'operatorSkill', code: answer('operatorSkill', 'mine'), replace: true });
      expect(replaced.body).toMatchObject({ code: 'SKILL_NOT_OWNED', message: expect.stringContaining('belongs to the operator') });
      expect((await callTool(client, 'delete_skill', { name: 'operatorSkill' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    }
    expect(await skillText('operatorSkill')).toBe(answer('operatorSkill', 'operator'));
    expect((await callTool(alice, 'list_skills')).body.skills.find((s: { name: string }) => s.name === 'operatorSkill')).toMatchObject({ owner: 'operator', yours: false });

    // A client's skill the operator edits by hand is the operator's from then on.
    expect((await callTool(alice, 'save_skill', { name: 'edited', code: answer('edited', 'alice') })).isError).toBe(false);
    await writeFile(join(project.rootDir, 'skills/edited.ts'), answer('edited', 'operator'));
    expect((await callTool(alice, 'save_skill', { name: 'edited', code: answer('edited', 'again'), replace: true })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect((await callTool(alice, 'delete_skill', { name: 'edited' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect(await skillText('edited')).toBe(answer('edited', 'operator'));
  }, 90_000);

  it('keeps ownership next to the skills, the client id only hashed, across a restart of the server', async () => {
    expect((await callTool(alice, 'save_skill', { name: 'durable', code: answer('durable', 'alice') })).isError).toBe(false);
    const owners = await readFile(join(project.rootDir, 'skills/.owners.json'), 'utf8');
    const aliceId = (alice.transport as StreamableHTTPClientTransport).sessionId!;
    expect(aliceId).toMatch(/\S{16,}/);
    expect(owners).not.toContain(aliceId);
    expect(JSON.parse(owners)).toMatchObject({ durable: { client: expect.stringMatching(/^[0-9a-f]{64}$/), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });

    const again = new McpServe(project.rootDir);
    try {
      const carol = await again.connect();
      expect((await callTool(carol, 'save_skill', { name: 'durable', code: answer('durable', 'carol'), replace: true })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
      expect((await callTool(carol, 'delete_skill', { name: 'durable' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
      expect((await callTool(carol, 'execute', call('durable'))).body.result).toBe('alice');
    } finally {
      await again.stop();
    }
    expect((await callTool(alice, 'delete_skill', { name: 'durable' })).isError).toBe(false);
  }, 240_000);
});

describe('a skill that fails the build fails alone', () => {
  it('leaves the other skills and @capabilities/skills to every client, and the build names the failing one', async () => {
    expect((await callTool(alice, 'save_skill', { name: 'aliceGood', code: answer('aliceGood', 'a') })).isError).toBe(false);
    // Written by hand: one that reads a host file, one that no longer typechecks.
    await writeFile(join(project.rootDir, 'skills/badRead.ts'), "// @ts-ignore\nimport x from '/etc/passwd' with { type: 'text' };\n\n/** Reads. */\nexport async function badRead(): Promise<string> {\n  return String(x);\n}\n");
    await writeFile(join(project.rootDir, 'skills/badType.ts'), "/** Wrong. */\nexport async function badType(): Promise<string> {\n  return 1;\n}\n");
    // Bob's save rebuilds every skill.
    expect((await callTool(bob, 'save_skill', { name: 'bobGood', code: answer('bobGood', 'b') })).isError).toBe(false);
    for (const client of [alice, bob]) {
      const built = Object.fromEntries((await callTool(client, 'list_skills')).body.skills.map((s: { name: string; built: boolean }) => [s.name, s.built]));
      expect(built).toMatchObject({ aliceGood: true, bobGood: true, operatorSkill: true, badRead: false, badType: false });
      const run = await callTool(client, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn [await skills.aliceGood(), await skills.bobGood(), await skills.operatorSkill()];" });
      expect(run.body.result).toEqual(['a', 'b', 'operator']);
    }
    const report = await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
    const failed = Object.fromEntries(report.capabilities.filter((c) => c.status === 'failed').map((c) => [c.file, c.diagnostics[0]!.code]));
    expect(failed).toEqual({ 'skills/badRead.ts': 'IMPORT_REFUSED', 'skills/badType.ts': 'INVALID_DEFINITION' });
    expect(report.capabilities.find((c) => c.file === 'skills')?.status).toMatch(/^(built|unchanged)$/);
  }, 90_000);
});

describe('skill names and what a save checks', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'a-b', '1x', 'then', 'default'])('refuses the name %s at save, delete and build', async (name) => {
    for (const [tool, args] of [['save_skill', { name, code: answer('x', 'x') }], ['delete_skill', { name }]] as const) {
      const refused = await callTool(alice, tool, args);
      expect(refused.body).toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/^name: .* is not a skill name: /) });
    }
    await writeFile(join(project.rootDir, `skills/${name}.ts`), answer('x', 'x'));
    const report = await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
    const entry = report.capabilities.find((c) => c.file === `skills/${name}.ts`);
    expect(entry).toMatchObject({ status: 'failed', diagnostics: [{ code: 'INVALID_DEFINITION', message: expect.stringContaining(`skill "${name}": the name must`) }] });
    expect((await callTool(bob, 'execute', call('operatorSkill'))).body.result).toBe('operator');
  }, 60_000);

  it('refuses at save, as the build does, a skill importing a file of the project outside the skills folder', async () => {
    await writeFile(join(project.rootDir, 'util.ts'), "export const util = 'project file';\n");
    const code = "// @ts-ignore\nimport { util } from '../util';\n\n/** Uses a project file. */\nexport async function usesUtil(): Promise<string> {\n  return util;\n}\n";
    const saved = await callTool(alice, 'save_skill', { name: 'usesUtil', code });
    expect(saved.body).toMatchObject({ code: 'IMPORT_REFUSED', message: expect.stringContaining("skills/usesUtil.ts imports '../util'") });
    await writeFile(join(project.rootDir, 'skills/usesUtil.ts'), code);
    const report = await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
    expect(report.capabilities.find((c) => c.file === 'skills/usesUtil.ts')?.diagnostics).toEqual([
      expect.objectContaining({ code: 'IMPORT_REFUSED', message: expect.stringContaining("skills/usesUtil.ts imports '../util'") }),
    ]);
  }, 60_000);
});
