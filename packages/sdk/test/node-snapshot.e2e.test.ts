// isolated-vm needs node's --no-node-snapshot on Node 20+: only processes that create isolates must have it. An SDK app
// (and the CLI) started with plain `node` runs agent code in sandbox processes, which set the flag themselves; asking
// for isolates in such a process (`isolation: 'in-process'`) is refused with SANDBOX_UNAVAILABLE, never a crash.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const APP = fileURLToPath(new URL('./fixtures/snapshot-app.mjs', import.meta.url));

interface AppOutput {
  run?: { ok: boolean; result?: unknown };
  again?: { ok: boolean; result?: unknown };
  error?: { code: string; message: string };
}

/** Starts the app with node `flags` (and `NODE_OPTIONS`), isolation `isolation` (and `appArgs` after it); what it printed. */
function startApp(flags: string[], isolation: string, nodeOptions = '', appArgs: string[] = []): Promise<AppOutput> {
  const env = { ...process.env, NODE_OPTIONS: nodeOptions };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, APP, isolation, ...appArgs], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the app failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as AppOutput);
    });
  });
}

describe('node started without --no-node-snapshot', () => {
  it('runs agent code (plain runs and a session) in sandbox processes, the default isolation', async () => {
    const output = await startApp([], 'process');
    expect(output.run).toMatchObject({ ok: true, result: 42 });
    expect(output.again).toMatchObject({ ok: true, result: 42 });
  });

  it.each([
    ['no flag at all', [], '', []],
    ['another V8 flag only', ['--max-semi-space-size=2'], '', []],
    ['other NODE_OPTIONS only', [], '--max-old-space-size=512', []],
    ['the flag given to the script, not to node', [], '', ['--no-node-snapshot']],
  ])('refuses in-process isolation with SANDBOX_UNAVAILABLE naming the flag (%s)', async (_name, flags, nodeOptions, appArgs) => {
    const output = await startApp(flags, 'in-process', nodeOptions, appArgs);
    expect(output.error?.code).toBe('SANDBOX_UNAVAILABLE');
    expect(output.error?.message).toContain('--no-node-snapshot');
    expect(output.error?.message).toContain("isolation 'process'");
  });

  it.each([
    ['as a node flag', ['--no-node-snapshot'], ''],
    ['in NODE_OPTIONS', [], '--no-node-snapshot'],
    ['in NODE_OPTIONS among others', [], '--max-old-space-size=512 --no-node-snapshot'],
  ])('runs in-process isolation when the flag is given %s', async (_name, flags, nodeOptions) => {
    const output = await startApp(flags, 'in-process', nodeOptions);
    expect(output.run).toMatchObject({ ok: true, result: 42 });
    expect(output.again).toMatchObject({ ok: true, result: 42 });
  });
});
