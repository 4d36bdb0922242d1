// CLI conventions (issue 31, item 7) from a user's view: the real bin in temp projects.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, runCli } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { commands } from '../src/commands/index.js';
import { installWithoutIsolatedVm } from './support/without-isolated-vm.js';

const CALC = {
  name: 'calc',
  description: 'Arithmetic on the host',
  functions: [{ name: 'add', description: 'Add two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, returns: { type: 'number' } }],
  executor: { kind: 'module', module: './calc.handlers.mjs' },
};

let project: Project;
const cli = (...args: string[]) => project.cli(args);

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
    'capabilities/calc.json': CALC,
    'capabilities/calc.handlers.mjs': 'export const add = ({ a, b }) => a + b;\n',
    'agents/hello.ts': "import { calc } from '@capabilities/calc';\nexport default await calc.add({ a: 2, b: 3 });\n",
  });
  expect((await cli('capabilities', 'build')).code).toBe(0);
});

describe('--help', () => {
  it('lists every option of every command with its short form, in aligned columns no wider than 80', async () => {
    const all = [[], ...commands.map((c) => c.path)];
    const helps = await Promise.all(all.map(async (path) => ({ path, result: await cli(...path, '--help') })));
    for (const { path, result } of helps) {
      expect(result.code, path.join(' ')).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length, `${path.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
      const options = lines.slice(lines.indexOf('Options:') + 1);
      // Every row starts its flags at column 2 and its description at one column shared by the section.
      const starts = new Set(options.filter((l) => /^ {2}\S|^ {6}--/.test(l) && /\S {2,}\S/.test(l.trim())).map((l) => /^(\s+\S+(?:,? \S+)*\s{2,})/.exec(l)![1]!.length));
      expect(starts.size, `${path.join(' ')}:\n${options.join('\n')}`).toBe(1);
      const command = commands.find((c) => c.path.join(' ') === path.join(' '));
      for (const [name, option] of Object.entries(command?.options ?? {})) {
        expect(result.stdout, `${path.join(' ')} --${name}`).toContain(`${option.short ? `-${option.short}, ` : '    '}--${name}`);
      }
      if (command) expect(result.stdout).toContain('-q, --quiet');
      if (command) expect(result.stdout).toContain('-h, --help');
    }
    expect(helps.find((h) => h.path.join(' ') === 'capabilities build')!.result.stdout).toContain('-w, --watch');
    const serve = helps.find((h) => h.path.join(' ') === 'mcp serve')!.result.stdout;
    expect(serve).toMatch(/--max-sessions-per-client <n> +Most sessions/);
    // An option too long for the column gets its description on the next line, in the column.
    expect(serve).toMatch(/--session-processes <client\|principal>\n {38}Whose sessions/);
  }, 120_000);

  it.each(['capabilities', 'skills', 'approvals', 'mcp'])('%s --help lists the group\'s commands and exits 0', async (group) => {
    for (const flag of ['--help', '-h']) {
      const result = await cli(group, flag);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: agent-spaces ${group} <command> [options]`);
      for (const command of commands.filter((c) => c.path[0] === group)) expect(result.stdout).toContain(command.path.join(' '));
    }
  });
});

describe('did you mean', () => {
  const FAMILIES: Array<[string[], string]> = [
    [['doctr'], 'unknown command "doctr" (did you mean "doctor"?)'],
    [['biuld'], '(did you mean "capabilities build"?)'],
    [['capabilities', 'biuld'], 'unknown command "capabilities biuld" (did you mean "capabilities build"?)'],
    [['capabilites', 'list'], '(did you mean "capabilities list"?)'],
    [['approvals', 'aprove', 'x'], '(did you mean "approvals approve"?)'],
    [['agents/hello.ts'], 'unknown command "agents/hello.ts"'],
    [['run', 'agents/hello.ts', '--jsno'], 'unknown option "--jsno" (did you mean "--json"?)'],
    [['capabilities', 'build', '--forse'], 'unknown option "--forse" (did you mean "--force"?)'],
    [['mcp', 'serve', '--prot', '1'], 'unknown option "--prot" (did you mean "--port"?)'],
    [['run', 'agents/hello.ts', '-x'], 'unknown option "-x"'],
    [['run', 'agents/hello.ts', '--config'], '--config needs a value (<file>)'],
    [['run', 'agents/hello.ts', '--config', '-q'], '--config needs a value (<file>)'],
    [['run', 'agents/hello.ts', '--json=yes'], '--json takes no value (got "yes")'],
    [['run'], 'expected <file.ts>, got none'],
    [['run', 'a.ts', 'b.ts'], 'expected <file.ts>, got "a.ts" "b.ts"'],
    [['capabilities'], '"capabilities" needs a command: capabilities build'],
    [['run', 'agents/hello.ts', '-q', '--verbose'], '--quiet and --verbose exclude each other'],
    [['completion', 'tcsh'], 'no script for "tcsh" (shells: bash, zsh, fish)'],
  ];
  it.each(FAMILIES)('%j: INVALID_ARGUMENTS, exit 2, never Node\'s parseArgs text', async (args, expected) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('INVALID_ARGUMENTS');
    expect(result.stderr).toContain(expected);
    expect(result.stderr).not.toMatch(/ERR_PARSE_ARGS|To specify an option argument|Unknown option '/);
    const json = await cli(...args, '--json');
    expect(json.code).toBe(2);
    const failure = JSON.parse(json.stdout);
    expect(failure).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENTS' } });
  }, 30_000);
});

describe('--json', () => {
  it('prints one JSON value on stdout for every command that prints data', async () => {
    const empty = await makeProject({});
    const init = await runCli(empty.dir, ['init', '--json']);
    expect(init.code).toBe(0);
    expect(JSON.parse(init.stdout)).toBeTypeOf('object');
    const DATA: string[][] = [
      ['capabilities', 'build'],
      ['capabilities', 'list'],
      ['capabilities', 'show', 'calc'],
      ['skills', 'list'],
      ['check', 'agents/hello.ts'],
      ['run', 'agents/hello.ts'],
      ['audit'],
      ['approvals', 'list'],
      ['doctor'],
    ];
    const results = await Promise.all(DATA.map(async (args) => ({ args, result: await cli(...args, '--json') })));
    for (const { args, result } of results) {
      expect(() => JSON.parse(result.stdout), `${args.join(' ')}: ${result.stdout}${result.stderr}`).not.toThrow();
    }
    const show = JSON.parse(results[2]!.result.stdout);
    expect(show).toMatchObject({ id: 'calc', exportName: 'calc' });
    expect(show.declarations).toContain('add(');
    expect(JSON.parse(results[5]!.result.stdout)).toMatchObject({ ok: true, result: 5 });
    const failed = await cli('capabilities', 'show', 'nope', '--json');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, error: { code: expect.any(String) } });
  }, 120_000);
});

describe('config from a subfolder', () => {
  it('finds the config above the working folder; command paths resolve against the working folder', async () => {
    const run = await runCli(project.path('agents'), ['run', 'hello.ts']);
    expect(run.stderr).not.toContain('CONFIG_NOT_FOUND');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('5');
    const list = await runCli(project.path('agents'), ['capabilities', 'list', '--json']);
    expect(JSON.parse(list.stdout).map((m: { id: string }) => m.id)).toEqual(['calc']);
    const check = await runCli(project.path('agents'), ['check', 'hello.ts', '--json']);
    expect(JSON.parse(check.stdout)).toEqual({ ok: true, diagnostics: [] });
  }, 60_000);

  it('looks no higher than the project root (a folder holding .git)', async () => {
    const outer = await makeProject({ 'agent-spaces.config.json': { capabilities: [] }, 'repo/sub/script.ts': 'export default 1;\n' });
    await mkdir(outer.path('repo/.git'), { recursive: true });
    const inside = await runCli(outer.path('repo/sub'), ['capabilities', 'list', '--json']);
    expect(inside.code).toBe(1);
    expect(JSON.parse(inside.stdout).error).toMatchObject({ code: 'CONFIG_NOT_FOUND' });
    expect(JSON.parse(inside.stdout).error.message).toContain(outer.path('repo'));
    const above = await runCli(outer.path('repo/sub'), ['capabilities', 'list', '--json', '--config', '../../agent-spaces.config.json']);
    expect(above.code).toBe(0);
  }, 60_000);
});

describe('shell completion', () => {
  /** What bash's completion function offers for `line` (the cursor at its end), with the script `completion bash` printed. */
  let binFolder: Promise<string> | undefined;
  /** A folder holding an `agent-spaces` command, written once (calls run at once: a rewrite under a running one fails it). */
  const agentSpacesBin = () =>
    (binFolder ??= (async () => {
      const bin = project.path('.bin');
      await mkdir(bin, { recursive: true });
      await writeFile(`${bin}/agent-spaces`, `#!/bin/sh\nexec "${process.execPath}" "${CLI_BIN}" "$@"\n`, { mode: 0o755 });
      return bin;
    })());
  async function complete(line: string): Promise<string[]> {
    const bin = await agentSpacesBin();
    const words = line.split(' ');
    const script = [
      'source <(agent-spaces completion bash)',
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      '_agent_spaces_complete',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    return new Promise((resolve, reject) => {
      execFile('bash', ['-c', script], { cwd: project.dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.split('\n').filter(Boolean)),
      );
    });
  }

  it('completes commands, subcommands, options, option values and built capability names in bash', async () => {
    const [top, sub, option, value, capability, shells, none] = await Promise.all([
      complete('agent-spaces ca'),
      complete('agent-spaces capabilities b'),
      complete('agent-spaces run hello.ts --js'),
      complete('agent-spaces mcp serve --log-format '),
      complete('agent-spaces capabilities show '),
      complete('agent-spaces completion '),
      complete('agent-spaces run '),
    ]);
    expect(top).toEqual(['capabilities']);
    expect(sub).toEqual(['build']);
    expect(option).toEqual(['--json']);
    expect(value).toEqual(['text', 'json']);
    expect(capability).toEqual(['calc']);
    expect(shells).toEqual(['bash', 'zsh', 'fish']);
    expect(none).toEqual([]); // bash then completes file names (complete -o default)
  }, 60_000);

  it('prints a script for zsh and fish too (not run here: neither shell is installed)', async () => {
    expect((await cli('completion', 'zsh')).stdout).toContain('compdef _agent_spaces_complete agent-spaces');
    expect((await cli('completion', 'fish')).stdout).toContain("complete -c agent-spaces -a '(__agent_spaces_complete)'");
  });
});

describe('a slow MCP server', () => {
  it('gets a progress line every few seconds while the build waits for its handshake', async () => {
    const slow = await makeProject({}, { nodeModules: true });
    await slow.write({
      'slow-server.mjs': [
        "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
        "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
        'await new Promise((resolve) => setTimeout(resolve, 7000)); // before answering initialize',
        "const server = new McpServer({ name: 'slow', version: '1.0.0' });",
        "server.registerTool('ping', { description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));",
        'await server.connect(new StdioServerTransport());',
      ].join('\n'),
      'agent-spaces.config.json': { capabilities: [], mcpServers: { slow: { command: process.execPath, args: [slow.path('slow-server.mjs')] } } },
    });
    const build = await slow.cli(['capabilities', 'build']);
    expect(build.code).toBe(0);
    expect(build.stderr).toMatch(/… waiting for MCP server "slow" \(3 s\)\n[^]*… waiting for MCP server "slow" \(6 s\)/);
    expect(build.stderr).toMatch(/✓ mcp-slow\s+built/);
    const quiet = await slow.cli(['capabilities', 'build', '--quiet', '--force']);
    expect(quiet.stderr).not.toContain('waiting for MCP server');
  }, 60_000);
});

describe('isolated-vm missing', () => {
  it('fails a run with SANDBOX_UNAVAILABLE pointing to doctor, not a require stack; doctor says what to fix', async () => {
    const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] }, 'hello.ts': 'export default 1 + 1;\n' });
    expect((await project.cli(['capabilities', 'build'])).code).toBe(0);
    const install = await installWithoutIsolatedVm();
    try {
      const bin = (...args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile(process.execPath, [install.bin, ...args], { cwd: project.dir, timeout: 60_000 }, (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
          );
        });
      const run = await bin('run', 'hello.ts');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('SANDBOX_UNAVAILABLE');
      expect(run.stderr).toContain('agent-spaces doctor');
      expect(run.stderr).not.toContain('Require stack');
      const json = JSON.parse((await bin('run', 'hello.ts', '--json')).stdout);
      expect(json.ok).toBe(false);
      expect(json.error.code).toBe('SANDBOX_UNAVAILABLE');
      expect(json.error.data.cause).toMatch(/isolated-vm/);
      const doctor = await bin('doctor');
      expect(doctor.code).toBe(1);
      expect(doctor.stderr + doctor.stdout).toMatch(/✗ isolated-vm/);
    } finally {
      await install.remove();
    }
  }, 120_000);
});
