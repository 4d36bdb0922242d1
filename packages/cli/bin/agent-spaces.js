#!/usr/bin/env -S node --no-node-snapshot
// Committed shim for the `agent-spaces` bin. isolated-vm needs node's --no-node-snapshot (set in the
// shebang above); when started another way (`node agent-spaces.js`), re-run once with the flag.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.bundle.js', import.meta.url);
if (!process.execArgv.includes('--no-node-snapshot')) {
  const child = spawnSync(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}
if (!existsSync(main)) {
  console.error('agent-spaces: the CLI is not built yet. Run `npm run build` in the agent-spaces checkout.');
  process.exit(1);
}
const { runCli } = await import(main.href);
process.exitCode = await runCli(process.argv.slice(2));
