// The `agent-spaces` command as users run it: the committed bin shim over the built packages, in a temp project.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
const cli = (...args: string[]) => project.cli(args);

const CALC = {
  name: 'calc',
  description: 'Arithmetic on the host',
  functions: [
    {
      name: 'add',
      description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      returns: { type: 'number' },
    },
  ],
  executor: { kind: 'module', module: './calc.handlers.mjs' },
};

beforeAll(async () => {
  project = await makeProject({
    'capabilities/calc.json': CALC,
    'capabilities/calc.handlers.mjs': 'export const add = ({ a, b }) => a + b;\n',
    'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
    'sum.ts': "import { calc } from '@capabilities/calc';\nconst total: number = await calc.add({ a: 2, b: 3 });\nconsole.log('total', total);\nexport default { total };\n",
    'wrong.ts': "import { calc } from '@capabilities/calc';\n\nawait calc.add({ a: 'two', b: 3 });\n",
  });
});

describe('agent-spaces', () => {
  it('prints usage with every command, and exits 2 for an unknown one', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    for (const command of ['capabilities build', 'capabilities list', 'capabilities show', 'run <file.ts>', 'check <file.ts>', 'mcp serve']) {
      expect(help.stdout).toContain(command);
    }
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const badOption = await cli('capabilities', 'build', '--bogus');
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('unknown option "--bogus"');
  });

  it('builds, then skips unchanged sources, and reports the build as JSON', async () => {
    const first = await cli('capabilities', 'build');
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/✓ calc\s+built\s+capabilities\/calc\.json/);
    expect(first.stderr).toContain('1 built, 0 unchanged, 0 failed');
    const again = await cli('capabilities', 'build', '--json');
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report.totals).toEqual({ built: 0, unchanged: 1, failed: 0 });
  });

  it('lists and shows the built capabilities', async () => {
    const list = await cli('capabilities', 'list', '--json');
    expect(list.code).toBe(0);
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain('"calc"');
    const show = await cli('capabilities', 'show', 'calc');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("declare module '@capabilities/calc'");
    expect(show.stdout).toContain('add(params: AddParams): Promise<number>;');
  });

  it('runs a script, printing calls and logs live and the result', async () => {
    const run = await cli('run', 'sum.ts');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('→ calc.add({"a":2,"b":3})');
    expect(run.stderr).toMatch(/← calc\.add ok/);
    expect(run.stderr).toContain('[log] total 5');
    expect(run.stdout).toContain('total: 5');
    const json = await cli('run', 'sum.ts', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, result: { total: 5 }, stats: { capabilityCalls: 1 } });
  });

  it('reports a script that crashes V8 as SANDBOX_CRASHED and exits 1, never dying by a signal', async () => {
    await project.write({ 'bomb.ts': 'const m = new Map<number, number>();\nfor (let i = 0; ; i++) m.set(i, i);\n' });
    const run = await cli('run', 'bomb.ts', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED' } });
  }, 60_000);

  it('prints the result and exits when work the script queued spins on after it', async () => {
    await project.write({ 'leftover.ts': 'void Promise.resolve().then(() => null).then(() => { for (;;) {} });\nexport default 7;\n' });
    const started = Date.now();
    const run = await cli('run', 'leftover.ts', '--json');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, result: 7 });
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('reports type errors at the script line from run and check, and exits 1', async () => {
    const check = await cli('check', 'wrong.ts');
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/wrong\.ts:3:/);
    const run = await cli('run', 'wrong.ts');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('TYPE_ERROR');
    expect(run.stderr).toMatch(/wrong\.ts:3:/);
    const unchecked = await cli('run', 'wrong.ts', '--no-check', '--json');
    expect(unchecked.code).toBe(1);
    expect(JSON.parse(unchecked.stdout)).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', capability: 'calc', data: { code: 'INVALID_PARAMS' } } });
  });

  it('fails a bad definition with its code and JSON pointer, keeping the last good output', async () => {
    await project.write({ 'capabilities/calc.json': { ...CALC, functions: [{ ...CALC.functions[0], parameters: { type: 'object', properties: { a: { type: 'numbr' } } } }] } });
    const build = await cli('capabilities', 'build');
    expect(build.code).toBe(1);
    expect(build.stderr).toContain('capabilities/calc.json#/functions/0/parameters/properties/a');
    const run = await cli('run', 'sum.ts', '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, result: { total: 5 } });
  });

  it('runs scripts in a project of no capabilities once it was built', async () => {
    await project.write({
      'empty/agent-spaces.config.json': { capabilities: [] },
      'empty/sum.ts': "import { csv } from '@agent-spaces/std';\nreturn csv.parse('a,b').length;\n",
    });
    const before = await cli('run', 'empty/sum.ts', '--config', 'empty/agent-spaces.config.json');
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('run `agent-spaces capabilities build` first');
    expect((await cli('capabilities', 'build', '--config', 'empty/agent-spaces.config.json')).code).toBe(0);
    const after = await cli('run', 'empty/sum.ts', '--config', 'empty/agent-spaces.config.json', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ ok: true, result: 1 });
  });

  it('refuses bad option values, naming the option', async () => {
    const approve = await cli('run', 'sum.ts', '--approve', 'some');
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain('--approve must be "all" or "none", got "some"');
    const port = await cli('mcp', 'serve', '--port', 'eighty');
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be an integer from 0 to 65535, got "eighty"');
    const both = await cli('mcp', 'serve', '--stdio', '--port', '8080');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('use either --stdio or --port, not both');
    const perClient = await cli('mcp', 'serve', '--max-sessions-per-client', '0');
    expect(perClient.code).toBe(2);
    expect(perClient.stderr).toContain('--max-sessions-per-client must be an integer from 1 to 100000, got "0"');
    for (const value of ['user', 'Principal', 'clients', '']) {
      const packing = await cli('mcp', 'serve', '--session-processes', value);
      expect(packing.code).toBe(2);
      expect(packing.stderr).toContain(`--session-processes must be "client" or "principal", got "${value}"`);
    }
  });

  it('names the config problem when the config is invalid', async () => {
    await project.write({ 'bad.config.json': { capabilities: 'capabilities/*.json' } });
    const build = await cli('capabilities', 'build', '--config', 'bad.config.json');
    expect(build.code).toBe(1);
    expect(build.stderr).toContain('CONFIG_INVALID');
    expect(build.stderr).toContain('bad.config.json');
  });
});
