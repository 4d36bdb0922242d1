// Builds that refuse what cannot work: names the proxy cannot use, schemas ajv cannot compile, and defineTool() files
// whose import exits, hangs or crashes — each fails (or is renamed) with a diagnostic while the rest builds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@agent-spaces/capabilities';
import { buildCapabilities, type BuildReport } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';

async function build(files: Record<string, string>, options: { loadTimeoutMs?: number } = {}) {
  const p = await makeProject(files);
  const report = await buildCapabilities({ rootDir: p.dir, sources: ['capabilities/*'], ...options });
  return { report, read: (path: string) => readFile(join(p.dir, '.agent-spaces/capabilities', path), 'utf8') };
}

const entry = (report: BuildReport, id: string) => {
  const found = report.capabilities.find((c) => c.id === id);
  if (!found) throw new Error(`no entry ${id} in ${JSON.stringify(report.capabilities.map((c) => c.id))}`);
  return found;
};
const line = (d: Diagnostic) => `${d.severity} ${d.code} ${d.message}`;

describe('names the generated proxy cannot use', () => {
  const VARIANTS = ['call', 'CALL', 'Call', 'call_', 'then', 'THEN', 'Then', 'then_', 'then-'];

  it.each(VARIANTS)('renames a function named %j with a warning naming it, and builds', async (name) => {
    const definition = { name: 'clash', functions: [{ name }, { name: 'other' }] };
    const { report, read } = await build({ 'capabilities/clash.json': JSON.stringify(definition) });
    const built = entry(report, 'clash');
    expect(built.status).toBe('built');
    const renamed = name.toLowerCase().startsWith('call') ? 'call_' : 'then_';
    expect(built.diagnostics.map(line)).toEqual([expect.stringMatching(new RegExp(`^warning NAME_COLLISION function "${name}" is exported as ${renamed}: `))]);
    const proxy = await read('clash/index.js');
    expect(proxy).toContain(`${renamed}: (params) => call("clash", "${renamed}", params),`);
    expect(proxy).toContain(`export const ${renamed} = clash.${renamed};`);
    expect(proxy).not.toMatch(/export const (call|then) =|^\s+(call|then):/m);
  });

  it.each(['call', 'then'])('renames a capability named %j, which would be the proxy binding itself', async (name) => {
    const { report, read } = await build({ [`capabilities/${name}-cap.json`]: JSON.stringify({ name, functions: [{ name: 'run' }] }) });
    const built = entry(report, `${name}-cap`);
    expect(built.status).toBe('built');
    expect(built.diagnostics.map(line)).toEqual([expect.stringMatching(new RegExp(`^warning NAME_COLLISION capability "${name}" is exported as ${name}_: `))]);
    expect(await read(`${name}-cap/index.js`)).toContain(`export const ${name}_ = Object.freeze({`);
  });

  it('refuses a handler module exporting then (the module would be a thenable)', async () => {
    const definition = { name: 'mod', functions: [{ name: 'then' }], executor: { kind: 'module', module: './mod.handlers.mjs' } };
    const { report } = await build({ 'capabilities/mod.json': JSON.stringify(definition), 'capabilities/mod.handlers.mjs': 'export const then = () => 1;\n' });
    const failed = entry(report, 'mod');
    expect(failed.status).toBe('failed');
    expect(failed.diagnostics.map(line)).toContain('error NAME_COLLISION function "then" cannot be a handler module export: the module would be a thenable, which import() unwraps; rename the function');
  });

  it('refuses two names that both become call_', async () => {
    const { report } = await build({ 'capabilities/both.json': JSON.stringify({ name: 'both', functions: [{ name: 'call' }, { name: 'CALL' }] }) });
    const failed = entry(report, 'both');
    expect(failed.status).toBe('failed');
    expect(failed.diagnostics.map((d) => `${d.severity} ${d.code}`)).toContain('error NAME_COLLISION');
  });
});

describe('schemas compiled at build time', () => {
  const schemas: Record<string, [properties: Record<string, unknown>, field: string, message: RegExp]> = {
    'an unclosed pattern': [{ query: { type: 'string', pattern: '(' } }, 'query', /Invalid regular expression/],
    'a pattern valid only without the u flag': [{ query: { type: 'string', pattern: '\\-[' } }, 'query', /Invalid regular expression/],
    'a pattern in patternProperties': [{ tags: { type: 'object', patternProperties: { '[': { type: 'string' } } } }, 'tags', /Invalid regular expression/],
    'minLength as a string': [{ name: { type: 'string', minLength: 'x' } }, 'name', /minLength/],
    'multipleOf as a string': [{ step: { type: 'number', multipleOf: 'two' } }, 'step', /multipleOf/],
    'a nested property': [{ address: { type: 'object', properties: { zip: { type: 'string', maxLength: 'ten' } } } }, 'address.zip', /maxLength/],
    'inside array items': [{ rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'string', pattern: '[' } } } } }, 'rows.id', /Invalid regular expression/],
    'inside anyOf': [{ value: { anyOf: [{ type: 'string' }, { type: 'string', pattern: '*' }] } }, 'value', /Invalid regular expression/],
  };

  for (const [label, [properties, field, message]] of Object.entries(schemas)) {
    it(`fails the build on ${label}, naming source, function and field; the rest builds`, async () => {
      const bad = { name: 'search', functions: [{ name: 'find_items', parameters: { type: 'object', properties } }, { name: 'fine' }] };
      const { report } = await build({
        'capabilities/search.json': JSON.stringify(bad),
        'capabilities/good.json': JSON.stringify({ name: 'good', functions: [{ name: 'ok', parameters: { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } } } }] }),
      });
      expect(entry(report, 'good').status).toBe('built');
      const failed = entry(report, 'search');
      expect(failed.status).toBe('failed');
      expect(failed.diagnostics).toHaveLength(1);
      const [diagnostic] = failed.diagnostics;
      expect(diagnostic).toMatchObject({ code: 'INVALID_DEFINITION', severity: 'error', file: 'capabilities/search.json' });
      expect(diagnostic!.message).toContain(`function "find_items": param "${field}"`);
      expect(diagnostic!.message).toMatch(message);
      expect(diagnostic!.pointer).toMatch(/^\/functions\/0\/parameters\/properties\//);
      expect(report.totals).toEqual({ built: 1, unchanged: 0, failed: 1 });
    });
  }

  it('names the parameters schema itself when the problem is at its root', async () => {
    const bad = { name: 'root', functions: [{ name: 'f', parameters: { type: 'object', maxProperties: 'x', properties: { q: { type: 'string' } } } }] };
    const { report } = await build({ 'capabilities/root.json': JSON.stringify(bad) });
    expect(entry(report, 'root').diagnostics.map(line)).toEqual([expect.stringMatching(/^error INVALID_DEFINITION function "f": its parameters schema does not compile: maxProperties/)]);
  });
});

describe('defineTool() files load in a child process with a time limit', () => {
  const definition = (name: string) => `export const ${name} = { name: '${name}', functions: { run: { handler: async () => '${name} ran' } } };\n`;
  const FILES: Record<string, string> = {
    'capabilities/good.ts': definition('good'),
    'capabilities/exits.ts': `process.exit(0);\n${definition('exits')}`,
    'capabilities/exits-later.ts': `await new Promise((resolve) => setTimeout(resolve, 10));\nprocess.exit(3);\n${definition('exitsLater')}`,
    'capabilities/hangs.ts': `while (true) {}\n${definition('hangs')}`,
    'capabilities/waits.ts': `await new Promise((resolve) => setInterval(() => {}, 1000));\n${definition('waits')}`,
    'capabilities/throws.ts': `throw new Error('no config for this tool');\n${definition('throws')}`,
    'capabilities/aborts.ts': `process.abort();\n${definition('aborts')}`,
    'capabilities/kills.ts': `process.kill(process.pid, 'SIGKILL');\n${definition('kills')}`,
    'capabilities/prints.ts': `console.log('hello from the top level');\n${definition('prints')}`,
    'capabilities/keeps-open.ts': `setInterval(() => {}, 1000);\n${definition('keepsOpen')}`,
  };

  it('fails each source that exits, hangs or crashes with a clear code; the others build', async () => {
    // Long enough that a good file loads on a busy machine; the hanging ones cost this long, in parallel.
    const { report } = await build(FILES, { loadTimeoutMs: 8_000 });
    const outcome = (id: string) => {
      const found = entry(report, id);
      return [found.status, ...found.diagnostics.map((d) => d.code)].join(' ');
    };
    expect(outcome('good')).toBe('built');
    expect(outcome('prints')).toBe('built');
    expect(outcome('keeps-open')).toBe('built');
    expect(outcome('exits')).toBe('failed SOURCE_UNREADABLE');
    expect(outcome('exits-later')).toBe('failed SOURCE_UNREADABLE');
    expect(outcome('throws')).toBe('failed SOURCE_UNREADABLE');
    expect(outcome('aborts')).toBe('failed SOURCE_UNREADABLE');
    expect(outcome('kills')).toBe('failed SOURCE_UNREADABLE');
    expect(outcome('hangs')).toBe('failed TIMEOUT');
    expect(outcome('waits')).toBe('failed TIMEOUT');
    const message = (id: string) => entry(report, id).diagnostics[0]!.message;
    expect(message('exits')).toContain('importing capabilities/exits.ts ended its process: it exited with code 0');
    expect(message('exits-later')).toContain('exited with code 3');
    expect(message('kills')).toContain('was killed by SIGKILL');
    expect(message('aborts')).toContain('was killed by SIGABRT');
    expect(message('throws')).toBe('importing capabilities/throws.ts threw: no config for this tool');
    expect(message('hangs')).toBe('importing capabilities/hangs.ts did not finish within 8000 ms (a loop or a wait at its top level?)');
    expect(report.totals).toEqual({ built: 3, unchanged: 0, failed: 7 });
  }, 60_000);
});
