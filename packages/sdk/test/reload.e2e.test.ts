// `space.reload()` in a long-lived SDK space: after a rebuild of an edited `defineTool()` handler and of a file it
// imports, later calls run the rebuilt code; before `reload()` (or without a rebuild) they run what was loaded.
import { describe, expect, it } from 'vitest';
import type { Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/** `capabilities/greeter.ts`: `greet` answers `<greeting()>, <name> (<version>)`; `instance` names the module instance. */
const greeter = (version: string) => `import { defineTool } from '@agent-spaces/capabilities';
import { greeting } from '../lib/greet.js';

const instance = Math.random().toString(36).slice(2);

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
    instance: { description: 'The id of the loaded module instance', returns: {} as string, handler: async () => instance },
  },
});
`;
const lib = (word: string) => `export function greeting(): string {\n  return '${word}';\n}\n`;

async function rebuild(project: Project): Promise<void> {
  const report = await project.build();
  expect(report.totals.failed, JSON.stringify(report.capabilities)).toBe(0);
}

async function result(space: Space, code: string): Promise<unknown> {
  const run = await space.run(`import { greeter } from '@capabilities/greeter';\n${code}`);
  if (!run.ok) throw new Error(JSON.stringify(run.error));
  return run.result;
}

describe('space.reload()', () => {
  it('runs the rebuilt handler and its rebuilt import after reload, the loaded code before it, and reuses an unchanged module', async () => {
    const project = await makeProject(
      { 'agent-spaces.config.json': { capabilities: ['capabilities/*.ts'] }, 'capabilities/greeter.ts': greeter('v1'), 'lib/greet.ts': lib('Hello') },
      { nodeModules: true },
    );
    await rebuild(project);
    const space = await project.space({ isolation: 'in-process' });
    const greet = "return await greeter.greet({ name: 'Ada' });";
    expect(await result(space, greet)).toBe('Hello, Ada (v1)');
    const first = await result(space, 'return await greeter.instance();');

    // Nothing rebuilt: a reload keeps the very module loaded (it costs no memory).
    space.reload();
    expect(await result(space, 'return await greeter.instance();')).toBe(first);

    await project.write({ 'capabilities/greeter.ts': greeter('v2'), 'lib/greet.ts': lib('Hi') });
    await rebuild(project);
    // Rebuilt, not reloaded: the space runs what it loaded.
    expect(await result(space, greet)).toBe('Hello, Ada (v1)');

    space.reload();
    expect(await result(space, greet)).toBe('Hi, Ada (v2)');
    expect(await result(space, 'return await greeter.instance();')).not.toBe(first);

    // Only the imported file changed: its new code comes with the rebuilt bundle.
    await project.write({ 'lib/greet.ts': lib('Hey') });
    await rebuild(project);
    space.reload();
    expect(await result(space, greet)).toBe('Hey, Ada (v2)');
  }, 120_000);
});
