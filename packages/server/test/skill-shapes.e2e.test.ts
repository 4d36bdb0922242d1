import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, newClient } from './support/client.js';
import { stdioServe } from './support/serve.js';
import { createProject, type TestProject } from './support/project.js';

/**
 * save_skill takes skills in the shapes agents write (docs/mcp-server.md, "Skills"), over a real `mcp serve --stdio`
 * with the official SDK client: each shape is saved in the typed form and imported by a later `execute`; a refused
 * shape's error shows the code rewritten into the accepted shape; hostile variants are refused or kept harmless.
 */

let project: TestProject;
let client: Client;

beforeAll(async () => {
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }) });
  const transport = stdioServe(project.rootDir);
  client = newClient();
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await project?.cleanup();
});

const IMPORT = "import { skills } from '@capabilities/skills';";
const skillFile = (name: string) => readFile(join(project.rootDir, `skills/${name}.ts`), 'utf8');
const save = (args: Record<string, unknown>) => callTool(client, 'save_skill', args);
const run = (code: string) => callTool(client, 'execute', { code: `${IMPORT}\n${code}` });

describe('save_skill accepts the shapes agents write', () => {
  it('a default-exported async function, its doc comment from `description`', async () => {
    const code = 'export default async function addVat(params: { amount: number }): Promise<number> {\n  return params.amount * 1.2;\n}\n';
    const saved = await save({ name: 'addVat', code, description: 'Adds 20 % VAT to an amount.' });
    expect(saved.isError, saved.text).toBe(false);
    expect(saved.body.signature).toBe('skills.addVat(params: { amount: number }): Promise<number>');
    expect(await skillFile('addVat')).toBe('/**\n * Adds 20 % VAT to an amount.\n */\nexport async function addVat(params: { amount: number }): Promise<number> {\n  return params.amount * 1.2;\n}\n');
    expect((await run('return skills.addVat({ amount: 100 });')).body.result).toBe(120);
  }, 60_000);

  it('a named async function under another name, not exported', async () => {
    const code = '/** Doubles a number. */\nasync function twice(params: { n: number }): Promise<number> {\n  return params.n * 2;\n}\n';
    const saved = await save({ name: 'double', code });
    expect(saved.isError, saved.text).toBe(false);
    expect(await skillFile('double')).toContain('export async function double(params: { n: number }): Promise<number>');
    expect((await run('return skills.double({ n: 21 });')).body.result).toBe(42);
  }, 60_000);

  it('a body using params plus a parameters schema (and a result schema), wrapped into the typed function', async () => {
    const body = "import { trainSchedule } from '@capabilities/trains';\nconst trips = await trainSchedule.getSchedule({ station: params.station });\nreturn trips.filter((t) => t.hour < params.before).map((t) => t.destination);";
    const parameters = { type: 'object', properties: { station: { type: 'string' }, before: { type: 'integer' } }, required: ['station', 'before'] };
    const saved = await save({ name: 'earlyTrains', code: body, parameters, returns: { type: 'array', items: { type: 'string' } }, description: 'Destinations of the trains leaving before an hour.' });
    expect(saved.isError, saved.text).toBe(false);
    expect(saved.body.signature).toMatch(/^skills\.earlyTrains\(params: EarlyTrainsParams\): Promise<.+>$/);
    const text = await skillFile('earlyTrains');
    expect(text.startsWith("import { trainSchedule } from '@capabilities/trains';\n\nexport interface EarlyTrainsParams { station: string; before: number }")).toBe(true);
    expect(text).toContain('/**\n * Destinations of the trains leaving before an hour.\n */\nexport async function earlyTrains(params: EarlyTrainsParams): Promise<');
    // The served project has no handler for the runtime capability: the call reaching it shows the skill ran.
    const early = await run("return skills.earlyTrains({ station: 'North', before: 12 });");
    expect(early.body.events).toEqual([expect.objectContaining({ capability: 'trains', function: 'getSchedule', params: { station: 'North' } })]);
    const gross = await save({ name: 'gross', code: 'return params.amount * (1 + params.rate);', parameters: { type: 'object', properties: { amount: { type: 'number' }, rate: { type: 'number' } }, required: ['amount', 'rate'] }, returns: { type: 'number' }, description: 'An amount with a rate added.' });
    expect(gross.isError, gross.text).toBe(false);
    expect((await run('return skills.gross({ amount: 100, rate: 0.5 });')).body.result).toBe(150);
    const wrong = await run("return skills.earlyTrains({ station: 'North' });");
    expect(wrong.body.code).toBe('TYPE_ERROR');
  }, 60_000);
});

describe('a refused shape', () => {
  it.each([
    ['an arrow function without a result type', 'export const lastStop = async (params: { trainId: string }) => params.trainId;', 'export async function lastStop(params: { trainId: string }): Promise</* declare the result type */ unknown> {\n  return params.trainId;\n}'],
    ['a sync function', '/** Halves. */\nexport function half(params: { n: number }): number {\n  return params.n / 2;\n}', 'export async function half(params: { n: number }): Promise<number> {'],
    ['several positional parameters', '/** Sums. */\nexport async function sum(a: number, b: number): Promise<number> {\n  return a + b;\n}', 'export async function sum({ a, b }: { a: number; b: number }): Promise<number> {'],
    ['a body without a parameters schema', 'return params.amount * 2;', 'export async function body(params: { /* declare the fields params has */ unknown }): Promise</* declare the result type */ unknown> {\n  return params.amount * 2;\n}'],
    ['a non-function default export', 'export default 42;', 'export async function answer(params: { /* declare the fields params has */ unknown }): Promise</* declare the result type */ unknown> {\n  return 42;\n}'],
  ])('%s: the error shows the code rewritten into the accepted shape, nothing saved', async (_, code, rewritten) => {
    const name = /function (\w+)/.exec(rewritten)![1]!;
    const refused = await save({ name, code, description: 'Does it.' });
    expect(refused.isError).toBe(true);
    expect(['INVALID_DEFINITION', 'TYPE_ERROR']).toContain(refused.body.code);
    expect(refused.body.message).toContain('in the accepted shape');
    expect(refused.body.message).toContain(rewritten);
    await expect(skillFile(name)).rejects.toThrow();
  }, 60_000);
});

describe('hostile variants', () => {
  it('a huge description is refused by the schema; nothing saved', async () => {
    const refused = await save({ name: 'huge', code: 'export default async function huge(): Promise<number> { return 1; }', description: 'x'.repeat(100_000) });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe('INVALID_ARGUMENTS');
    await expect(skillFile('huge')).rejects.toThrow();
  });

  it('a description containing */ stays inside the doc comment', async () => {
    const description = 'Ends early */ export const evil = 1; /* and more';
    const saved = await save({ name: 'quoted', code: 'export default async function quoted(): Promise<string> { return "ok"; }', description });
    expect(saved.isError, saved.text).toBe(false);
    const text = await skillFile('quoted');
    expect(text).toContain(' * Ends early *\\/ export const evil = 1; /* and more\n */\nexport async function quoted');
    expect(text).not.toMatch(/^export const evil/m);
    expect((await run('return skills.quoted();')).body.result).toBe('ok');
  }, 60_000);

  it('code with several exports: the function of the name is the skill', async () => {
    const code = '/** Triples. */\nexport async function triple(params: { n: number }): Promise<number> { return params.n * 3; }\nexport async function other(): Promise<number> { return 0; }\nexport const LIMIT = 3;\n';
    const saved = await save({ name: 'triple', code });
    expect(saved.isError, saved.text).toBe(false);
    expect((await run('return skills.triple({ n: 3 });')).body.result).toBe(9);
    const ambiguous = await save({ name: 'whichOne', code: '/** A. */\nexport async function a(): Promise<number> { return 1; }\n/** B. */\nexport async function b(): Promise<number> { return 2; }\n' });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.body.message).toContain('in the accepted shape');
    // Without a description, the shape shows where the doc comment goes.
    expect(ambiguous.body.message).toContain('/**\n * What whichOne does (or pass it as description).\n */\nexport async function whichOne(');
  }, 60_000);

  it('a parameters schema that is not an object is refused', async () => {
    const refused = await save({ name: 'badSchema', code: 'return 1;', parameters: 'string' });
    expect(refused.isError).toBe(true);
    expect(refused.body.code).toBe('INVALID_ARGUMENTS');
  });
});
