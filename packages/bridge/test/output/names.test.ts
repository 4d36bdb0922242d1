import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveCapabilityNames } from '../../src/output-entry.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { writeCapability } from '../fixtures.js';

let dir: string;

beforeEach(async () => {
  ({ dir } = await makeProject());
  for (const id of ['trains', 'mcp-slack', 'todos', 'acme-sdk', 'broken']) {
    await writeCapability(dir, { id, executor: { kind: 'runtime' }, functions: [] });
  }
  await editMeta('todos', (meta) => (meta.source = { kind: 'openapi', file: 'openapi.todos' }));
  await editMeta('acme-sdk', (meta) => {
    meta.source = { kind: 'npm', file: 'package.json' };
    meta.package = { name: '@acme/sdk', version: '1.0.0', mode: 'host' };
  });
  await writeFile(join(dir, 'broken', 'meta.json'), '{');
});

async function editMeta(id: string, edit: (meta: Record<string, unknown>) => void): Promise<void> {
  const file = join(dir, id, 'meta.json');
  const meta = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  edit(meta);
  await writeFile(file, JSON.stringify(meta));
}

describe('resolveCapabilityNames', () => {
  it('resolves ids, mcp:<server>, openapi:<name> and npm package names, in order and once each, skipping std', () => {
    const names = ['@acme/sdk', 'mcp:slack', 'openapi:todos', '@agent-spaces/std', 'trains', 'acme-sdk', 'broken'];
    expect(resolveCapabilityNames(dir, names)).toEqual(['acme-sdk', 'mcp-slack', 'todos', 'trains', 'broken']);
  });

  it('fails with CAPABILITY_NOT_FOUND and the closest names, aliases included', () => {
    expect(() => resolveCapabilityNames(dir, ['openapi:todo'])).toThrowError(
      expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND', data: { name: 'openapi:todo', closest: expect.arrayContaining(['openapi:todos']) } }),
    );
    expect(() => resolveCapabilityNames(dir, ['@acme/sdx'])).toThrowError(expect.objectContaining({ data: { name: '@acme/sdx', closest: ['@acme/sdk', 'acme-sdk'] } }));
  });

  it('does not take openapi:<name> for an id of that name', () => {
    expect(() => resolveCapabilityNames(dir, ['openapi:trains'])).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }));
  });
});
