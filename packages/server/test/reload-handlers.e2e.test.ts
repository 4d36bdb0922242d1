// An edited handler over a running `agent-spaces mcp serve` (the committed bin over the built packages), as a user
// meets it: the official SDK client calls a `defineTool()` capability through `execute`, the handler and a file it
// imports (`lib/greet.ts`) are edited, `agent-spaces capabilities build` rebuilds, and the next run gets the new code
// while a run in flight across the rebuild finishes on the old one.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { callTool } from './support/client.js';

const CHILD = { timeout: 120_000 };

/** `capabilities/greeter.ts`: `greet` answers `<greeting()>, <name> (<version>)`; `hold` waits for a file. */
const greeter = (version: string) => `import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool } from '@agent-spaces/capabilities';
import { greeting } from '../lib/greet.js';

export const greeter = defineTool({
  name: 'greeter',
  description: 'Greets people',
  functions: {
    greet: {
      description: 'Greet someone by name',
      parameters: { name: { type: 'string', required: true } },
      returns: {} as string,
      handler: async ({ name }) => \`\${greeting()}, \${name} (${version})\`,
    },
    hold: {
      description: 'Writes the file started, then waits until the file release exists',
      parameters: { started: { type: 'string', required: true }, release: { type: 'string', required: true } },
      returns: {} as boolean,
      handler: async ({ started, release }) => {
        writeFileSync(started, '');
        while (!existsSync(release)) await sleep(50);
        return true;
      },
    },
  },
});
`;
const lib = (word: string) => `export function greeting(): string {\n  return '${word}';\n}\n`;

const GREET = (name: string) => `import { greeter } from '@capabilities/greeter';\nreturn await greeter.greet({ name: '${name}' });`;

let project: Project;
let client: Client;

beforeAll(async () => {
  project = await makeProject(
    { 'agent-spaces.config.json': { capabilities: ['capabilities/*.ts'] }, 'capabilities/greeter.ts': greeter('v1'), 'lib/greet.ts': lib('Hello') },
    { nodeModules: true },
  );
  const built = await project.cli(['capabilities', 'build']);
  expect(built.code, built.stderr).toBe(0);
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--no-node-snapshot', CLI_BIN, 'mcp', 'serve', '--stdio'], cwd: project.dir, stderr: 'pipe' });
  client = new Client({ name: 'reload-handlers-test', version: '1.0.0' });
  await client.connect(transport);
}, CHILD.timeout);

afterAll(async () => {
  await client?.close();
});

/** The result of agent code `code` run through the `execute` tool; fails the test on an error result. */
async function execute(code: string): Promise<unknown> {
  const answer = await callTool(client, 'execute', { code });
  expect(answer.isError, answer.text).toBe(false);
  return (answer.body as { result: unknown }).result;
}

describe('mcp serve after a rebuild of an edited handler', () => {
  it(
    'runs the rebuilt handler and the rebuilt file it imports; an unbuilt edit changes nothing; a run in flight ends on the old code',
    async () => {
      expect(await execute(GREET('Ada'))).toBe('Hello, Ada (v1)');

      // Edited but not rebuilt: what the server runs is the build, not the sources.
      await project.write({ 'lib/greet.ts': lib('Hi') });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await execute(GREET('Ada'))).toBe('Hello, Ada (v1)');

      // A run in flight: it greets, holds across the rebuild, then greets again.
      const started = project.path('started');
      const release = project.path('release');
      const inFlight = execute(
        `import { greeter } from '@capabilities/greeter';\nconst before = await greeter.greet({ name: 'A' });\n` +
          `await greeter.hold({ started: ${JSON.stringify(started)}, release: ${JSON.stringify(release)} });\n` +
          `return [before, await greeter.greet({ name: 'B' })];`,
      );
      await expect.poll(() => existsSync(started), { timeout: 20_000 }).toBe(true);

      await project.write({ 'capabilities/greeter.ts': greeter('v2') });
      const rebuilt = await project.cli(['capabilities', 'build']);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      await expect.poll(() => execute(GREET('Ada')), { timeout: 10_000, interval: 300 }).toBe('Hi, Ada (v2)');

      await writeFile(release, '');
      expect(await inFlight).toEqual(['Hello, A (v1)', 'Hello, B (v1)']);

      // Only the imported file edited and rebuilt: the import is new too.
      await project.write({ 'lib/greet.ts': lib('Hey') });
      const again = await project.cli(['capabilities', 'build']);
      expect(again.code, again.stderr).toBe(0);
      await expect.poll(() => execute(GREET('Bo')), { timeout: 10_000, interval: 300 }).toBe('Hey, Bo (v2)');
    },
    CHILD.timeout,
  );
});
