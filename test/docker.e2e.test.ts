// The Dockerfile, compose.yaml and .dockerignore at the repository's root, checked without a Docker engine (there is
// none here, and images cannot be pulled): every file and stage they name exists, the commands they run are the CLI's,
// the health check's command gets 200 from a real `mcp serve` at the path it asks, and compose runs what the image does.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { commands } from '../packages/cli/src/commands/index.js';
import { CLI_BIN } from './fixtures/cli.js';
import { makeProject } from './fixtures/project.js';
import { freePort } from './services/postgres.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** The Dockerfile's instructions (continuation lines joined, comments left out), each with the index of its stage. */
function instructions(): Instruction[] {
  const lines = read('Dockerfile').replace(/\\\n/g, ' ').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  let stage = -1;
  return lines.map((line) => {
    const [, keyword = '', args = ''] = /^(\w+)\s+(.*)$/.exec(line.trim()) ?? [];
    if (keyword === 'FROM') stage++;
    return { keyword, args: args.trim(), stage };
  });
}

/** The exec form (`["node", "-e", …]`) of an instruction's arguments. */
const execForm = (args: string): string[] => JSON.parse(args.replace(/^.*?(?=\[)/, '')) as string[];

/** Runs the health check's command with the port it probes replaced by `port`; resolves with its exit code. */
function probe(command: string[], port: number): Promise<number> {
  const [file, ...args] = command.map((arg) => arg.replace('127.0.0.1:8080', `127.0.0.1:${port}`));
  return new Promise((done) => execFile(file === 'node' ? process.execPath : file!, args, { timeout: 10_000 }, (error) => done(error ? Number(error.code ?? 1) : 0)));
}

describe('Dockerfile', () => {
  const all = instructions();
  const stages = all.filter((i) => i.keyword === 'FROM').map((i) => /\bAS\s+(\S+)/i.exec(i.args)?.[1]);
  const last = all.filter((i) => i.stage === stages.length - 1);

  it('builds in a stage with the toolchain and runs on node:20-bookworm-slim as a non-root user', () => {
    const from = all.filter((i) => i.keyword === 'FROM').map((i) => i.args.split(/\s+/)[0]);
    expect(from.slice(0, -1).every((image) => image === 'node:20-bookworm')).toBe(true);
    expect(from.at(-1)).toBe('node:20-bookworm-slim');
    expect(last.filter((i) => i.keyword === 'USER').map((i) => i.args)).toEqual(['node']);
    expect(last.some((i) => i.keyword === 'RUN' && /npm (ci|install)/.test(i.args))).toBe(false);
  });

  it('copies only what exists: files of the repository, and earlier stages by their names', () => {
    for (const { args, stage } of all.filter((i) => i.keyword === 'COPY')) {
      const parts = args.split(/\s+/);
      const from = /^--from=(\S+)$/.exec(parts[0]!)?.[1];
      if (from) expect(stages.indexOf(from), args).toBeGreaterThanOrEqual(0);
      if (from) expect(stages.indexOf(from), args).toBeLessThan(stage);
      else for (const source of parts.slice(0, -1)) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
  });

  it('runs the scripts and commands that exist, with flags the CLI takes', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const run = all.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' ');
    for (const [, script] of run.matchAll(/npm run (\S+)/g)) expect(scripts[script!], script).toBeDefined();
    expect(scripts.pack).toBe('node scripts/pack.mjs');
    // pack.mjs writes the tarballs the install stage copies from packs/.
    expect(read('scripts/pack.mjs')).toContain('const packs = `${root}packs`');
    const cmd = execForm(last.find((i) => i.keyword === 'CMD')!.args).at(-1)!;
    for (const [, invocation] of cmd.matchAll(/agent-spaces ([^&]+)/g)) {
      const words = invocation!.trim().split(/\s+/);
      const command = commands.find((c) => c.path.every((part, index) => words[index] === part));
      expect(command, invocation).toBeDefined();
      for (const flag of words.filter((word) => word.startsWith('--'))) expect(Object.keys(command!.options), flag).toContain(flag.slice(2));
    }
    expect(cmd).toContain('--host 0.0.0.0');
    expect(last.find((i) => i.keyword === 'EXPOSE')?.args).toBe('8080');
  });

  it('leaves out of the build context nothing the build stage needs', () => {
    const ignored = read('.dockerignore').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')).map((p) => p.replace(/^\*\*\//, ''));
    for (const needed of ['package.json', 'package-lock.json', 'scripts/pack.mjs', 'packages/cli/src/main.ts', 'packages/cli/bin/agent-spaces.js', 'turbo.json', 'LICENSE']) {
      expect(existsSync(join(ROOT, needed)), needed).toBe(true);
      expect(ignored.filter((pattern) => needed.split('/').includes(pattern) || needed === pattern), needed).toEqual([]);
    }
    for (const heavy of ['node_modules', 'dist', '.git', 'packs']) expect(ignored).toContain(heavy);
  });
});

describe('its health check', () => {
  let server: ReturnType<typeof spawn> | undefined;
  afterEach(async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((done) => server!.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  });

  it("fails while nothing listens, and passes on a real `mcp serve` (GET /health, no token)", async () => {
    const command = execForm(instructions().find((i) => i.keyword === 'HEALTHCHECK')!.args);
    expect(command.join(' ')).toContain('http://127.0.0.1:8080/health');
    const port = await freePort();
    expect(await probe(command, port)).toBe(1);

    const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] } });
    server = spawn(process.execPath, [CLI_BIN, 'mcp', 'serve', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: project.dir,
      env: { ...process.env, AGENT_SPACES_MCP_TOKEN: 'docker-test-token' },
      stdio: 'ignore',
    });
    await expect.poll(() => probe(command, port), { timeout: 20_000, interval: 250 }).toBe(0);
    // The same path refuses what a probe does not send: the server really routes it (a POST is 405).
    const post = await fetch(`http://127.0.0.1:${port}/health`, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as { services: Record<string, Record<string, unknown>> };
  const service = compose.services['agent-spaces']!;

  it('builds this Dockerfile, mounts the project where the image works, and checks health as the image does', () => {
    const image = instructions();
    expect(service.build).toBe('.');
    const workdir = image.filter((i) => i.keyword === 'WORKDIR').at(-1)!.args;
    expect((service.volumes as string[]).map((v) => v.split(':')[1])).toEqual([workdir]);
    expect((service.ports as string[]).map((p) => p.split(':').at(-1))).toEqual([image.find((i) => i.keyword === 'EXPOSE')!.args]);
    expect((service.healthcheck as { test: string[] }).test).toEqual(['CMD', ...execForm(image.find((i) => i.keyword === 'HEALTHCHECK')!.args)]);
    expect((service.environment as Record<string, string>).AGENT_SPACES_MCP_TOKEN).toMatch(/^\$\{AGENT_SPACES_MCP_TOKEN:\?/);
  });
});
