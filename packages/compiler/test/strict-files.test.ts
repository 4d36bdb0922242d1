import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { RATE_PERIODS } from '@agent-spaces/capabilities';
import { CONFIG_KEYS, findConfigProblem } from '../src/config/validate.js';
import { createRequire } from 'node:module';
import standalone from 'ajv/dist/standalone/index.js';
import { createSchemaSet, FILE_SCHEMAS, fileSchema, findSchemaProblems, type FileFormat } from '../src/config/file-schemas.js';
import { readJsonSource } from '../src/sources/json.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { sourceContext } from './helpers.js';

/** The diagnostics of `capabilities/<name>` holding `definition`, as `pointer: message`. */
async function diagnostics(definition: unknown, name = 'crm.json'): Promise<string[]> {
  const project = await makeProject({ [`capabilities/${name}`]: JSON.stringify(definition) });
  const result = await readJsonSource(join(project.dir, 'capabilities', name), sourceContext(project.dir));
  return result.diagnostics.map((d) => `${d.code} ${d.file}#${d.pointer ?? ''}: ${d.message}`);
}

const fn = { name: 'delete_contact', parameters: { type: 'object', properties: { id: { type: 'string' } } } };
const capability = { name: 'crm', functions: [fn] };

describe('JSON capability files', () => {
  it('refuses requiresAproval with the suggestion, naming the file and the field, and builds nothing', async () => {
    const project = await makeProject({ 'capabilities/crm.json': JSON.stringify({ ...capability, functions: [{ ...fn, requiresAproval: true }] }) });
    const result = await readJsonSource(join(project.dir, 'capabilities/crm.json'), sourceContext(project.dir));
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics).toEqual([
      {
        code: 'INVALID_DEFINITION',
        severity: 'error',
        file: 'capabilities/crm.json',
        pointer: '/functions/0/requiresAproval',
        message: 'functions[0].requiresAproval is not a known key — did you mean "requiresApproval"?',
      },
    ]);
  });

  it.each([
    ['top level', { ...capability, descripton: 'x' }, '/descripton', 'did you mean "description"?'],
    ['capability config', { ...capability, config: { requireApproval: true } }, '/config/requireApproval', 'did you mean "requiresApproval"?'],
    ['rate limit', { ...capability, config: { rateLimit: { requests: 1, period: 'hour', burst: 2 } } }, '/config/rateLimit/burst', 'known keys: requests, period'],
    ['function', { ...capability, functions: [{ ...fn, paramters: {} }] }, '/functions/0/paramters', 'did you mean "parameters"?'],
    ['executor', { ...capability, executor: { kind: 'http', url: 'http://127.0.0.1:1/x', header: {} } }, '/executor/header', 'did you mean "headers"?'],
    ['bare tool', { ...fn, requiresAproval: true }, '/requiresAproval', 'did you mean "requiresApproval"?'],
    ['wrapped tool', { type: 'function', function: { ...fn, requiresAproval: true } }, '/function/requiresAproval', 'did you mean "requiresApproval"?'],
    ['beside the wrapped tool', { type: 'function', function: fn, confg: {} }, '/confg', 'did you mean "config"?'],
  ])('refuses a typo in the %s', async (_, definition, pointer, hint) => {
    const [first, ...rest] = await diagnostics(definition);
    expect(rest).toEqual([]);
    expect(first).toMatch(new RegExp(`^INVALID_DEFINITION capabilities/crm.json#${pointer}: .* is not a known key — `));
    expect(first).toContain(hint);
  });

  it.each([
    [{ ...capability, functions: [{ ...fn, requiresApproval: 'yes' }] }, '/functions/0/requiresApproval', 'must be true or false'],
    [{ ...capability, version: 2 }, '/version', 'must be a string'],
    [{ ...capability, functions: {} }, '/functions', 'must be an array of functions'],
    [{ ...capability, config: { rateLimit: { requests: 1.5, period: 'week' } } }, '/config/rateLimit/requests', 'must be an integer from 1'],
    [{ ...capability, config: { rateLimit: { requests: 1, period: 'week' } } }, '/config/rateLimit/period', 'must be one of second, minute, hour, day'],
    [{ ...capability, executor: { kind: 'lambda' } }, '/executor/kind', 'must be one of "module", "http", "runtime"'],
    [{ ...capability, executor: { kind: 'http' } }, '/executor/url', 'executor.url is required'],
    [{ ...capability, functions: [{ ...fn, parameters: { type: 'array' } }] }, '/functions/0/parameters/type', 'must be "object"'],
  ])('refuses a wrong type or value (%#)', async (definition, pointer, text) => {
    const [first] = await diagnostics(definition);
    expect(first).toContain(`#${pointer}: `);
    expect(first).toContain(text);
  });

  it('accepts $schema in every format, and OpenAI\'s strict flag', async () => {
    const $schema = '../node_modules/@agent-spaces/capabilities/schemas/capability-file.schema.json';
    expect(await diagnostics({ $schema, ...capability })).toEqual([]);
    expect(await diagnostics({ $schema, ...fn, strict: true })).toEqual([]);
    expect(await diagnostics({ $schema, type: 'function', function: { ...fn, strict: true } })).toEqual([]);
  });

  it('checks the example capability files of the repository', () => {
    const file = join(import.meta.dirname, '../../../capabilities/weather.json');
    const definition = JSON.parse(readFileSync(file, 'utf8')) as { $schema?: string };
    expect(findSchemaProblems('capability', definition)).toEqual([]);
    expect(definition.$schema).toBe('../node_modules/@agent-spaces/capabilities/schemas/capability-file.schema.json');
  });
});

describe('the config file', () => {
  it.each([
    [{ capabilites: [] }, 'capabilites', 'capabilites is not a known key — did you mean "capabilities"?'],
    [{ server: { prot: 8080 } }, 'server.prot', 'server.prot is not a known key — did you mean "port"?'],
    [{ server: { auth: { issuer: 'https://i', audience: 'https://a', scope: [] } } }, 'server.auth.scope', 'did you mean "scopes"?'],
    [{ spaces: [{ id: 'a', name: 'A', systemPromt: 'hi' }] }, 'spaces[0].systemPromt', 'did you mean "systemPrompt"?'],
    [{ spaces: [{ id: 'a', name: 'A', tools: [{ name: 't', descripton: 'd', description: 'd', parameters: { type: 'object' }, code: '1' }] }] }, 'spaces[0].tools[0].descripton', 'did you mean "description"?'],
    [{ capabilities: { globl: [] } }, 'capabilities.globl', 'did you mean "global"?'],
    [{ server: { port: '8080' } }, 'server.port', 'server.port must be an integer from 0 to 65535'],
    [{ server: { rateLimit: true } }, 'server.rateLimit', 'must be false or { requests, windowSeconds }'],
    [{ spaces: [{ id: 'a b', name: 'A' }] }, 'spaces[0].id', 'may hold only letters, digits'],
    [{ spaces: [{ id: 'a' }] }, 'spaces[0].name', 'spaces[0].name is required'],
    [{ outDir: '' }, 'outDir', 'outDir must be a non-empty string'],
  ])('refuses %j naming the field', (config, key, text) => {
    const problem = findConfigProblem(config);
    expect(problem?.key).toBe(key);
    expect(problem?.message).toContain(text);
  });

  it('accepts $schema, and keeps the checks a schema cannot make', () => {
    expect(findConfigProblem({ $schema: './node_modules/@agent-spaces/capabilities/schemas/config.schema.json', capabilities: ['capabilities/*'] })).toBeUndefined();
    expect(findConfigProblem({ typecheck: { timeout: 5000 } })?.message).toContain('typecheck has an unknown key "timeout"');
    expect(findConfigProblem({ capabilities: [{ package: 'x', versoin: '1' }] })?.message).toContain('[0].versoin is not a known key');
  });

  it('has one schema property per key of AgentSpacesConfig (CONFIG_KEYS), plus $schema', () => {
    const properties = Object.keys(fileSchema('config').properties as object);
    expect(properties.sort()).toEqual(['$schema', ...Object.keys(CONFIG_KEYS)].sort());
  });

  it('knows the rate periods the bridge knows', () => {
    const text = JSON.stringify(fileSchema('capability'));
    expect(text).toContain(`"enum":${JSON.stringify(RATE_PERIODS)}`);
  });
});

describe('agent files', () => {
  it('refuses a typo with the suggestion and accepts $schema, id and name being optional', () => {
    expect(findSchemaProblems('agent', { $schema: 'x', systemPromt: 'hi' }).map((p) => p.message)).toEqual(['systemPromt is not a known key — did you mean "systemPrompt"?']);
    expect(findSchemaProblems('agent', { $schema: 'x', systemPrompt: 'hi', prompts: [{ name: 'p', template: 't', argumnets: [] }] })[0]?.message).toBe(
      'prompts[0].argumnets is not a known key — did you mean "arguments"?',
    );
    expect(findSchemaProblems('agent', { systemPrompt: 'hi' })).toEqual([]);
  });
});

describe('the published schemas', () => {
  it.each(Object.entries(FILE_SCHEMAS))('%s: %s is exported by @agent-spaces/capabilities with a stable $id', (format, name) => {
    const schema = fileSchema(format as keyof typeof FILE_SCHEMAS);
    expect(schema.$id).toBe(`https://unpkg.com/@agent-spaces/capabilities/schemas/${name}`);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema(schema), ajv.errorsText()).toBe(true);
  });
});

describe('the precompiled validators (the build\'s ajv standalone code)', () => {
  const compiledNow = createSchemaSet();
  const module = { exports: {} as Record<string, (value: unknown) => boolean> };
  const code = standalone.default(createSchemaSet({ source: true }), Object.fromEntries(Object.keys(FILE_SCHEMAS).map((f) => [f, fileSchema(f as FileFormat).$id as string])));
  new Function('module', 'exports', 'require', code)(module, module.exports, createRequire(import.meta.url));
  const errorsOf = (validate: ((value: unknown) => boolean) & { errors?: unknown }, value: unknown) =>
    validate(value) ? [] : (validate.errors as { instancePath: string; keyword: string; params: unknown; parentSchema: unknown }[]).map((e) => [e.instancePath, e.keyword, e.params, e.parentSchema]);

  it.each([
    ['capability', { ...capability, functions: [{ ...fn, requiresAproval: true }] }],
    ['capability', { name: 'x', parameters: { type: 'array' }, strict: 'yes' }],
    ['config', { capabilites: [], server: { port: '8080', auth: { issuer: 1 } }, spaces: [{ id: 'a b' }] }],
    ['agent', { systemPromt: 'hi', prompts: [{ name: 'p', argumnets: [] }] }],
    ['agent', { systemPrompt: 'hi' }],
  ])('%s %j: the same errors as ajv compiling the schema now', (format, value) => {
    const now = compiledNow.getSchema(fileSchema(format as FileFormat).$id as string)!;
    expect(errorsOf(module.exports[format]!, value)).toEqual(errorsOf(now, value));
  });
});
