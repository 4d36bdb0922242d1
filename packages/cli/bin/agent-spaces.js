#!/usr/bin/env -S node --no-node-snapshot
// Committed shim for the `agent-spaces` bin. isolated-vm needs node's --no-node-snapshot (set in the
// shebang above); when started another way (`node agent-spaces.js`), re-run once with the flag.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.bundle.js', import.meta.url);
if (!process.execArgv.includes('--no-node-snapshot')) {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // A signal sent to this process alone (a supervisor's SIGTERM) reaches the CLI, which must not outlive it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else if (!existsSync(main)) {
  console.error('agent-spaces: the CLI is not built yet. Run `npm run build` in the agent-spaces checkout.');
  process.exit(1);
} else {
  const { runCli } = await import(main.href);
  process.exitCode = await runCli(process.argv.slice(2));
}
