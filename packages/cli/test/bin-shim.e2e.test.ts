// The committed bin shim as `node agent-spaces.js …` starts it (a Dockerfile's CMD, a supervisor, `node
// node_modules/.bin/agent-spaces`): it re-runs the CLI with --no-node-snapshot, and that CLI must never outlive it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_BIN, runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { freePort } from '../../../test/services/postgres.js';

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (response) => response.ok,
    () => false,
  );

describe('the bin shim started without --no-node-snapshot', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('passes %s on to the CLI it started: mcp serve stops with it', async (signal) => {
    const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] } });
    const port = await freePort();
    const shim = spawn(process.execPath, [CLI_BIN, 'mcp', 'serve', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: project.dir,
      env: { ...process.env, AGENT_SPACES_MCP_TOKEN: 'shim-test-token' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => shim.on('exit', (code) => done(code)));
    await expect.poll(() => answers(port), { timeout: 20_000, interval: 200 }).toBe(true);
    shim.kill(signal);
    expect(await exited).not.toBeNull();
    await expect.poll(() => answers(port), { timeout: 10_000, interval: 200 }).toBe(false);
  }, 40_000);

  it('exits with the CLI\'s exit code', async () => {
    const project = await makeProject({});
    const plain = (args: string[]) =>
      new Promise<number | null>((done) => spawn(process.execPath, [CLI_BIN, ...args], { cwd: project.dir, stdio: 'ignore' }).on('exit', (code) => done(code)));
    expect(await plain(['--version'])).toBe(0);
    expect(await plain(['biuld'])).toBe(2);
    expect((await runCli(project.dir, ['--version'])).code).toBe(0);
  });
});
