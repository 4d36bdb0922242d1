// The committed bin shim as users and supervisors start it (`agent-spaces …` through its `#!/usr/bin/env node`, or
// `node agent-spaces.js …` from a Dockerfile's CMD): one process, the CLI itself — no second node to re-run it with
// --no-node-snapshot (its sandbox processes set that flag themselves) —, which a signal stops and whose exit code is
// the command's.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_BIN, runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { freePort } from '../../../test/services/postgres.js';

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (response) => response.ok,
    () => false,
  );

/** The command lines of `pid`'s child processes, from /proc. */
function childCommands(pid: number): string[][] {
  const found: string[][] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) found.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('the bin shim', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('is the CLI itself, whose children are sandbox processes only; %s stops mcp serve', async (signal) => {
    const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] } });
    const port = await freePort();
    const shim = spawn(process.execPath, [CLI_BIN, 'mcp', 'serve', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: project.dir,
      env: { ...process.env, AGENT_SPACES_MCP_TOKEN: 'shim-test-token' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => shim.on('exit', (code) => done(code)));
    try {
      await expect.poll(() => answers(port), { timeout: 20_000, interval: 200 }).toBe(true);
      // Its warm sandbox process is up: every node child is one, started with the flag; none runs the CLI again (the
      // other children are esbuild's service).
      const nodeChildren = () => childCommands(shim.pid!).filter((command) => command[0] === process.execPath);
      await expect.poll(() => nodeChildren().length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
      for (const command of nodeChildren()) {
        expect(command).toContain('--no-node-snapshot');
        expect(command.join(' ')).toContain('process-child');
      }
      expect(childCommands(shim.pid!).flat()).not.toContain(CLI_BIN);
      shim.kill(signal);
      expect(await exited).toBe(0);
      await expect.poll(() => answers(port), { timeout: 10_000, interval: 200 }).toBe(false);
    } finally {
      // A failed assertion above must not leave the server running.
      if (shim.exitCode === null && shim.signalCode === null) shim.kill('SIGKILL');
    }
  }, 40_000);

  it("exits with the CLI's exit code", async () => {
    const project = await makeProject({});
    const plain = (args: string[]) =>
      new Promise<number | null>((done) => spawn(process.execPath, [CLI_BIN, ...args], { cwd: project.dir, stdio: 'ignore' }).on('exit', (code) => done(code)));
    expect(await plain(['--version'])).toBe(0);
    expect(await plain(['biuld'])).toBe(2);
    expect((await runCli(project.dir, ['--version'])).code).toBe(0);
  });
});
