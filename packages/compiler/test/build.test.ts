import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CATALOG_VERSION, type CapabilityMeta, type CapabilitySchemaFile } from '@agent-spaces/capabilities';
import { buildCapabilities, listCapabilities, readDeclarations, type BuildProgress, type BuildReport } from '../src/index.js';
import { CHECK_COMPILER_OPTIONS } from '../src/check/options.js';
import { makeProject } from '../../../test/fixtures/project.js';

const weather = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  executor: { kind: 'module', module: './weather.handlers.mjs' },
};
const notes = {
  name: 'notes',
  version: '2.0.0',
  functions: [{ name: 'add_note', parameters: { properties: { text: { type: 'string' } } }, requiresApproval: true, approvalMessage: 'Add {text}?' }],
};

async function project(files: Record<string, string> = {}) {
  const p = await makeProject({
    'capabilities/weather.json': JSON.stringify(weather),
    'capabilities/weather.handlers.mjs': 'export async function get_weather({ city }) { return { city }; }\n',
    'capabilities/notes.json': JSON.stringify(notes),
    'capabilities/README.md': '# not a source\n',
    ...files,
  });
  const out = join(p.dir, '.agent-spaces');
  const build = (options: { force?: boolean; sources?: string[] } = {}) =>
    buildCapabilities({ rootDir: p.dir, sources: options.sources ?? ['capabilities/*'], ...(options.force ? { force: true } : {}) });
  const file = (path: string) => readFile(join(out, path), 'utf8');
  return { ...p, out, build, file };
}

function statuses(report: BuildReport): string[] {
  return report.capabilities.map((c) => `${c.id} ${c.status}`);
}

describe('buildCapabilities', () => {
  it('writes every output file of each capability and the index files', async () => {
    const p = await project();
    const progress: BuildProgress[] = [];
    const report = await buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*'], onProgress: (e) => progress.push(e) });
    expect(statuses(report)).toEqual(['notes built', 'weather built']);
    expect(report.totals).toEqual({ built: 2, unchanged: 0, failed: 0 });
    expect(progress.map((e) => e.id).sort()).toEqual(['notes', 'weather']);
    expect((await readdir(join(p.out, 'capabilities', 'weather'))).sort()).toEqual(['catalog.json', 'host.mjs', 'index.d.ts', 'index.js', 'meta.json', 'schema.json', 'validators.cjs']);
    expect((await readdir(join(p.out, 'capabilities', 'notes'))).sort()).toEqual(['catalog.json', 'index.d.ts', 'index.js', 'meta.json', 'schema.json', 'validators.cjs']);
    expect(await p.file('capabilities/weather/index.js')).toContain('getWeather: (params) => call("weather", "getWeather", params),');
    expect(await p.file('capabilities/weather/host.mjs')).toContain('get_weather');

    const meta = JSON.parse(await p.file('capabilities/weather/meta.json')) as CapabilityMeta;
    expect(meta).toMatchObject({ id: 'weather', exportName: 'weather', source: { kind: 'json', file: 'capabilities/weather.json' }, executor: { kind: 'module', module: 'host.mjs' } });
    expect(Object.keys(meta.inputs!)).toEqual(['capabilities/weather.handlers.mjs', 'capabilities/weather.json']);
    expect(meta.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const notesMeta = JSON.parse(await p.file('capabilities/notes/meta.json')) as CapabilityMeta;
    expect(notesMeta.functions).toEqual([{ name: 'addNote', sourceName: 'add_note', requiresApproval: true, approvalMessage: 'Add {text}?' }]);

    const schema = JSON.parse(await p.file('capabilities/notes/schema.json')) as CapabilitySchemaFile;
    expect(schema).toEqual({ id: 'notes', functions: { addNote: { parameters: { type: 'object', properties: { text: { type: 'string' } } } } } });
    expect(await p.file('capabilities.d.ts')).toContain('/// <reference path="./capabilities/notes/index.d.ts" />\n/// <reference path="./capabilities/weather/index.d.ts" />\n');
    expect(await p.file('.gitignore')).toBe('*\n!README.md\n');
    expect(JSON.parse(await p.file('tsconfig.json'))).toEqual({
      compilerOptions: {
        ...CHECK_COMPILER_OPTIONS,
        paths: { '@capabilities/*': ['./capabilities/*/index.d.ts'] },
        plugins: [{ name: '@agent-spaces/ts-plugin' }],
      },
      files: ['./capabilities/notes/index.d.ts', './capabilities/weather/index.d.ts'],
    });
  });

  it('skips unchanged sources, rebuilds a source whose file or handler module changed, and rebuilds all with force', async () => {
    const p = await project();
    await p.build();
    expect(statuses(await p.build())).toEqual(['notes unchanged', 'weather unchanged']);
    await p.write({ 'capabilities/weather.handlers.mjs': 'export async function get_weather() { return { changed: true }; }\n' });
    expect(statuses(await p.build())).toEqual(['notes unchanged', 'weather built']);
    expect(await p.file('capabilities/weather/host.mjs')).toContain('changed: true');
    await p.write({ 'capabilities/notes.json': JSON.stringify({ ...notes, version: '2.0.1' }) });
    expect(statuses(await p.build())).toEqual(['notes built', 'weather unchanged']);
    expect(statuses(await p.build({ force: true }))).toEqual(['notes built', 'weather built']);
  });

  it('rebuilds, without force, what a compiler writing an older catalog format built', async () => {
    const p = await project();
    await p.build();
    const state = JSON.parse(await p.file('build-state.json')) as { capabilities: { compilerVersion: string }[] };
    expect(state.capabilities[0]!.compilerVersion).toMatch(/\+catalog\.\d+$/);
    // As a build of the previous format left it: no format in the version, a version-1 catalog.json.
    for (const record of state.capabilities) record.compilerVersion = record.compilerVersion.replace(/\+catalog\.\d+$/, '');
    await writeFile(join(p.out, 'build-state.json'), JSON.stringify(state));
    await writeFile(join(p.out, 'capabilities', 'notes', 'catalog.json'), JSON.stringify({ version: 1, functions: [], types: {} }));
    expect(statuses(await p.build())).toEqual(['notes built', 'weather built']);
    expect(JSON.parse(await p.file('capabilities/notes/catalog.json'))).toMatchObject({ version: CATALOG_VERSION });
  });

  it('finds unchanged sources from the meta.json files when build-state.json is gone, and rebuilds deleted output', async () => {
    const p = await project();
    await p.build();
    expect(JSON.parse(await p.file('build-state.json'))).toMatchObject({ version: 1, capabilities: [{ id: 'notes', file: 'capabilities/notes.json' }, { id: 'weather' }] });
    await rm(join(p.out, 'build-state.json'));
    expect(statuses(await p.build())).toEqual(['notes unchanged', 'weather unchanged']);
    await rm(join(p.out, 'capabilities', 'notes'), { recursive: true });
    expect(statuses(await p.build())).toEqual(['notes built', 'weather unchanged']);
  });

  it('keeps building the others when one source is bad, and keeps the bad one\'s last good output', async () => {
    const p = await project();
    await p.build();
    const before = await p.file('capabilities/notes/index.d.ts');
    await p.write({ 'capabilities/notes.json': '{ "name": "notes", "functions": [ }' });
    await p.write({ 'capabilities/weather.json': JSON.stringify({ ...weather, description: 'Changed' }) });
    const report = await p.build();
    expect(statuses(report)).toEqual(['notes failed', 'weather built']);
    expect(report.capabilities[0]!.diagnostics.map((d) => d.code)).toEqual(['INVALID_JSON']);
    expect(report.totals).toEqual({ built: 1, unchanged: 0, failed: 1 });
    expect(await p.file('capabilities/notes/index.d.ts')).toBe(before);
    expect(await listCapabilities(p.out)).toHaveLength(2);
  });

  it('fails a capability whose schema has a bad $ref or an unknown type, with the pointer', async () => {
    const bad = { name: 'bad', functions: [{ name: 'f', parameters: { properties: { a: { $ref: '#/$defs/Nope' }, b: { type: 'text' } } } }] };
    const p = await project({ 'capabilities/bad.json': JSON.stringify(bad) });
    const report = await p.build();
    const entry = report.capabilities.find((c) => c.id === 'bad')!;
    expect(entry.status).toBe('failed');
    expect(entry.diagnostics.map((d) => `${d.code} ${d.file}#${d.pointer}`)).toEqual([
      'BAD_REF capabilities/bad.json#/functions/0/parameters/properties/a/$ref',
      'UNKNOWN_TYPE capabilities/bad.json#/functions/0/parameters/properties/b/type',
    ]);
    expect(report.totals.built).toBe(2);
  });

  it('fails every source claiming one module id, naming the others', async () => {
    const p = await project({ 'more/notes.json': JSON.stringify({ ...notes, name: 'otherNotes' }) });
    const report = await p.build({ sources: ['capabilities/*', 'more/*.json'] });
    const failed = report.capabilities.filter((c) => c.status === 'failed');
    expect(failed.map((c) => [c.file, c.diagnostics[0]!.code])).toEqual([
      ['capabilities/notes.json', 'NAME_COLLISION'],
      ['more/notes.json', 'NAME_COLLISION'],
    ]);
    expect(failed[0]!.diagnostics[0]!.message).toContain('more/notes.json');
  });

  it('does not let a new source take the id of an unchanged one', async () => {
    const p = await project();
    await p.build();
    await p.write({ 'more/notes.json': JSON.stringify(notes) });
    const report = await p.build({ sources: ['capabilities/*', 'more/*.json'] });
    expect(report.capabilities.map((c) => `${c.file} ${c.status}`)).toEqual([
      'capabilities/notes.json unchanged',
      'capabilities/weather.json unchanged',
      'more/notes.json failed',
    ]);
  });

  it('reports a literal source path that does not exist, and ignores non-source files matched by a glob', async () => {
    const p = await project();
    const report = await p.build({ sources: ['capabilities/*', 'tools/missing.json'] });
    expect(report.capabilities.map((c) => `${c.id} ${c.status} ${c.diagnostics[0]?.code ?? ''}`.trim())).toEqual([
      'notes built',
      'weather built',
      'missing failed SOURCE_NOT_FOUND',
    ]);
  });

  it('reports a literal source no reader handles, and refuses unusable options with CONFIG_INVALID', async () => {
    const p = await project({ 'tools/api.yaml': 'openapi: 3.0.0\n' });
    const report = await p.build({ sources: ['tools/api.yaml'] });
    expect(report.capabilities.map((c) => `${c.id} ${c.status} ${c.diagnostics[0]!.code}`)).toEqual(['api failed SOURCE_UNREADABLE']);
    await expect(buildCapabilities({ rootDir: p.dir } as never)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('removes the output of a source that left the build', async () => {
    const p = await project();
    await p.build();
    await rm(join(p.dir, 'capabilities/notes.json'));
    const report = await p.build();
    expect(report.removed).toEqual(['notes']);
    expect((await listCapabilities(p.out)).map((m) => m.id)).toEqual(['weather']);
    expect(await p.file('capabilities.d.ts')).not.toContain('notes');
  });

  it('keeps the previous output when the output cannot be written', async () => {
    const p = await project();
    await p.build();
    const before = await p.file('capabilities/notes/index.d.ts');
    await writeFile(join(p.out, '.staging'), 'a file where the staging folder should be');
    await p.write({ 'capabilities/notes.json': JSON.stringify({ ...notes, description: 'New' }) });
    const report = await p.build();
    expect(report.capabilities.find((c) => c.id === 'notes')!.diagnostics.map((d) => d.code)).toEqual(['WRITE_FAILED']);
    expect(await p.file('capabilities/notes/index.d.ts')).toBe(before);
  });
});

describe('reading the output', () => {
  it('lists metas and reads declarations; an unknown id is CAPABILITY_NOT_FOUND', async () => {
    const p = await project();
    await p.build();
    expect((await listCapabilities(p.out)).map((m) => `${m.id} ${m.version}`)).toEqual(['notes 2.0.0', 'weather 0.0.0']);
    expect(await readDeclarations(p.out, 'notes')).toContain("declare module '@capabilities/notes'");
    await expect(readDeclarations(p.out, 'nope')).rejects.toMatchObject({ code: 'CAPABILITY_NOT_FOUND' });
    await expect(readDeclarations(p.out, '../notes')).rejects.toMatchObject({ code: 'CAPABILITY_NOT_FOUND' });
    expect(await listCapabilities(join(p.dir, 'no-output'))).toEqual([]);
  });

  it('writes the sandbox declarations it is given, lists them in the tsconfig fragment, and refuses a name that is not a plain .d.ts', async () => {
    const p = await project();
    const sandboxDeclarations = new Map([['globals.d.ts', 'declare const answer: 42;\n']]);
    await buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*'], sandboxDeclarations });
    expect(await p.file('types/agent-spaces/globals.d.ts')).toBe('declare const answer: 42;\n');
    expect(JSON.parse(await p.file('tsconfig.json')).files).toEqual(['./capabilities/notes/index.d.ts', './capabilities/weather/index.d.ts', './types/agent-spaces/globals.d.ts']);
    const bad = [...['../escape.d.ts', 'sub/x.d.ts', 'x.ts', '.d.ts', ''].map((name) => new Map([[name, '']])), new Map([['x.d.ts', 7]]), { 'x.d.ts': '' }];
    for (const sandboxDeclarations of bad as ReadonlyMap<string, string>[]) {
      await expect(buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*'], sandboxDeclarations })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        data: { key: 'sandboxDeclarations' },
      });
    }
  });

  it('resolves @capabilities/* for tsc through the generated tsconfig fragment', async () => {
    const p = await project({
      'agent.ts': "import { addNote } from '@capabilities/notes';\nimport { weather } from '@capabilities/weather';\nawait addNote({ text: 'x' });\nawait weather.getWeather({ city: 'Oslo' });\n// @ts-expect-error city is required\nawait weather.getWeather({});\nexport {};\n",
      'tsconfig.json': JSON.stringify({ extends: './.agent-spaces/tsconfig.json', compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', types: [] }, include: ['agent.ts'] }),
    });
    await p.build();
    const config = ts.getParsedCommandLineOfConfigFile(join(p.dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const program = ts.createProgram(config.fileNames, config.options);
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });
});
