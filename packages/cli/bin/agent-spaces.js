#!/usr/bin/env node
// Committed shim for the `agent-spaces` bin. The CLI's own process creates no isolate: agent code runs in sandbox
// processes, which start with the --no-node-snapshot isolated-vm needs. So plain `node` starts it, once.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.bundle.js', import.meta.url);
if (!existsSync(main)) {
  console.error('agent-spaces: the CLI is not built yet. Run `npm run build` in the agent-spaces checkout.');
  process.exit(1);
}
const { runCli } = await import(main.href);
process.exitCode = await runCli(process.argv.slice(2));
