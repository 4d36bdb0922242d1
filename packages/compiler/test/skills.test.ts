import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_FILES } from '@agent-spaces/capabilities';
import { buildCapabilities, buildFreshness, type BuildReport } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';

const counter = (param: string) =>
  JSON.stringify({
    name: 'counter',
    functions: [{ name: 'add', parameters: { type: 'object', properties: { [param]: { type: 'integer' } }, required: [param] }, returns: { type: 'integer' } }],
    executor: { kind: 'runtime' },
  });

const ADD = `import { counter } from '@capabilities/counter';

/** Adds to the counter. */
export async function add(params: { by: number }): Promise<number> {
  return counter.add({ by: params.by });
}
`;

const GREET = `/** Greets someone by name. */
export async function greet(params: { name: string }): Promise<string> {
  return \`hello \${params.name}\`;
}
`;

async function project(files: Record<string, string>) {
  const p = await makeProject(files);
  const build = () => buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*.json'] });
  return { ...p, build, out: join(p.dir, '.agent-spaces') };
}

const statusOf = (report: BuildReport, id: string) => report.capabilities.filter((c) => c.id === id).map((c) => `${c.file} ${c.status}`);

describe('skills in a build', () => {
  it('check each skill under the typecheck budget given, so a skill over it fails alone with TYPECHECK_LIMIT', async () => {
    const p = await project({ 'capabilities/counter.json': counter('by'), 'skills/add.ts': ADD, 'skills/greet.ts': `${GREET}${'// padding\n'.repeat(100)}` });
    const report = await buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*.json'], typecheckBudget: { maxSourceBytes: 1_000 } });
    expect(statusOf(report, 'skills').sort()).toEqual(['skills built', 'skills/greet.ts failed']);
    expect(report.capabilities.find((c) => c.file === 'skills/greet.ts')?.diagnostics[0]).toMatchObject({ code: 'TYPECHECK_LIMIT' });
    // Without the small budget, the same skill builds.
    expect(statusOf(await buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*.json'], force: true }), 'skills')).toEqual(['skills built']);
  });

  it('are taken as unchanged from the build records alone, without reading the capabilities declarations', async () => {
    const p = await project({ 'capabilities/counter.json': counter('by'), 'skills/add.ts': ADD });
    expect(statusOf(await p.build(), 'skills')).toEqual(['skills built']);
    // The records vouch for counter's index.d.ts: an edit there (the source unchanged) is not read, so not noticed.
    await appendFile(join(p.out, 'capabilities/counter/index.d.ts'), '// edited\n');
    expect(statusOf(await p.build(), 'skills')).toEqual(['skills unchanged']);
  });

  it('are checked again when a capability they are checked against changed, and when a skill changed', async () => {
    const p = await project({ 'capabilities/counter.json': counter('by'), 'skills/add.ts': ADD, 'skills/greet.ts': GREET });
    expect(statusOf(await p.build(), 'skills')).toEqual(['skills built']);
    await p.write({ 'capabilities/counter.json': counter('step') });
    const changed = await p.build();
    expect(statusOf(changed, 'skills')).toEqual(['skills built', 'skills/add.ts failed']);
    expect(changed.capabilities.find((c) => c.file === 'skills/add.ts')?.diagnostics[0]?.message).toContain('does not typecheck');
    await p.write({ 'capabilities/counter.json': counter('by') });
    expect(statusOf(await p.build(), 'skills')).toEqual(['skills built']);
    await p.write({ 'skills/greet.ts': GREET.replace('hello', 'hi') });
    expect(statusOf(await p.build(), 'skills')).toEqual(['skills built']);
    expect(await readFile(join(p.out, `capabilities/skills/${CAPABILITY_FILES.proxy}`), 'utf8')).toContain('hi ');
    expect(await readFile(join(p.out, `capabilities/skills/${CAPABILITY_FILES.declarations}`), 'utf8')).toContain(
      '\n    /** Greets someone by name. */\n    greet: typeof s1;\n',
    );
  });

  it('count in the freshness of the build: a skill added, changed or removed makes it stale', async () => {
    const p = await project({ 'capabilities/counter.json': counter('by'), 'skills/add.ts': ADD });
    const freshness = () => buildFreshness({ rootDir: p.dir, sources: ['capabilities/*.json'] });
    expect(await freshness()).toEqual({ stale: ['capabilities/counter.json', 'skills'], missing: [] });
    await p.build();
    expect(await freshness()).toEqual({ stale: [], missing: [] });
    await p.write({ 'skills/add.ts': ADD.replace('Adds to', 'Adds by') });
    expect((await freshness()).stale).toEqual(['skills']);
    await p.build();
    await p.write({ 'skills/greet.ts': GREET });
    expect((await freshness()).stale).toEqual(['skills']);
    await p.build();
    expect((await freshness()).stale).toEqual([]);
    await rm(join(p.dir, 'skills'), { recursive: true });
    expect((await freshness()).stale).toEqual(['skills']);
    await p.build();
    expect((await freshness()).stale).toEqual([]);
  });

  it('name the skill that imports a package (a skill imports only the space modules); the others still build', async () => {
    const p = await project({
      'capabilities/counter.json': counter('by'),
      'skills/greet.ts': GREET,
      // Typechecks (the package is unknown to the checker, the error suppressed), but a skill may not import a package.
      'skills/readIt.ts': `// @ts-ignore\nimport { readIt as read } from 'fs-pkg';\n\n/** Reads it. */\nexport async function readIt(): Promise<string> {\n  return read();\n}\n`,
      'node_modules/fs-pkg/package.json': JSON.stringify({ name: 'fs-pkg', version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts' }),
      'node_modules/fs-pkg/index.js': "import { readFileSync } from 'node:fs';\nexport const readIt = () => readFileSync('x', 'utf8');\n",
      'node_modules/fs-pkg/index.d.ts': 'export declare function readIt(): string;\n',
    });
    const report = await p.build();
    expect(statusOf(report, 'skills')).toEqual(['skills built', 'skills/readIt.ts failed']);
    expect(report.capabilities.find((c) => c.file === 'skills/readIt.ts')?.diagnostics).toEqual([
      {
        code: 'IMPORT_REFUSED',
        severity: 'error',
        file: 'skills/readIt.ts',
        message: `skill "readIt" may not import the package 'fs-pkg': skills/readIt.ts imports 'fs-pkg'; a skill imports only the modules the space provides (@capabilities/*, @agent-spaces/std), never a file or a package (skills/readIt.ts:2)`,
      },
    ]);
    expect(await readFile(join(p.out, `capabilities/skills/${CAPABILITY_FILES.proxy}`), 'utf8')).toContain('hello');
  });
});

