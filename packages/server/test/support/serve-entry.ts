// Child-process entry for tests: `node <tsNodeArgs> serve-entry.ts '<values as JSON>'` runs `agent-spaces mcp serve`
// (the `serve` command implementation) in the working directory, exactly as the CLI would with those option values.
import { serve } from '@agent-spaces/server';

const values = JSON.parse(process.argv[2] ?? '{}') as Record<string, string | boolean>;
process.exitCode = await serve({
  values,
  positionals: [],
  output: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`), interactive: false },
});
