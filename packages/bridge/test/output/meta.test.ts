import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityMeta } from '@agent-spaces/capabilities';
import { readBuiltMeta } from '../../src/output-entry.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { writeCapability } from '../fixtures.js';

let dir: string;

beforeEach(async () => {
  ({ dir } = await makeProject());
});

/** Writes capability `trains` as the compiler would, then lets `edit` change its parsed `meta.json`. */
async function builtMeta(edit: (meta: Record<string, unknown>) => void = () => undefined): Promise<string> {
  await writeCapability(dir, { id: 'trains', executor: { kind: 'runtime' }, functions: [{ name: 'list', requiresApproval: true }] });
  const file = join(dir, 'trains', 'meta.json');
  const meta = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  edit(meta);
  await writeFile(file, JSON.stringify(meta));
  return file;
}

describe('readBuiltMeta', () => {
  it('gives back every field of a meta.json as the compiler writes it', async () => {
    const extra = {
      description: '',
      compilerVersion: '0.1.0+catalog.3',
      inputs: { 'capabilities/trains.json': 'abc' },
      package: { name: '@acme/trains', version: '1.2.3', mode: 'host' },
      dependencies: [{ name: 'left-pad', version: '1.0.0' }],
    };
    const file = await builtMeta((meta) => {
      Object.assign(meta, extra);
      (meta.functions as object[]).push(
        { name: 'cancel', sourceName: 'cancel', approvalMessage: 'Cancel {id}?', hostApprovalMessage: true },
        { name: 'report', sourceName: 'report', task: 'required' },
      );
    });
    const written = JSON.parse(await readFile(file, 'utf8')) as CapabilityMeta;
    expect(readBuiltMeta(dir, 'trains')).toEqual(written);
    expect(written).toMatchObject(extra);
  });

  it('leaves out a config that is absent as {}', async () => {
    await builtMeta((meta) => delete meta.config);
    expect(readBuiltMeta(dir, 'trains').config).toEqual({});
  });

  it.each([
    ['/id', (m: Record<string, unknown>) => (m.id = 'buses')],
    ['/sourceName', (m: Record<string, unknown>) => delete m.sourceName],
    ['/source/kind', (m: Record<string, unknown>) => (m.source = { kind: 'fax', file: 'x' })],
    ['/source/file', (m: Record<string, unknown>) => (m.source = { kind: 'json' })],
    ['/builtAt', (m: Record<string, unknown>) => (m.builtAt = 0)],
    ['/inputs/a', (m: Record<string, unknown>) => (m.inputs = { a: 1 })],
    ['/package/mode', (m: Record<string, unknown>) => (m.package = { name: 'p', version: '1', mode: 'cloud' })],
    ['/dependencies/0/name', (m: Record<string, unknown>) => (m.dependencies = [{ name: '', version: '1' }])],
    ['/functions/1/name', (m: Record<string, unknown>) => (m.functions = [{ name: 'f', sourceName: 'f' }, { name: 'f', sourceName: 'g' }])],
    ['/functions/0/hostApprovalMessage', (m: Record<string, unknown>) => (m.functions = [{ name: 'f', sourceName: 'f', hostApprovalMessage: 'yes' }])],
    ['/functions/0/task', (m: Record<string, unknown>) => (m.functions = [{ name: 'f', sourceName: 'f', task: 'forbidden' }])],
    ['/config/rateLimit/period', (m: Record<string, unknown>) => (m.config = { rateLimit: { requests: 1, period: 'fortnight' } })],
    ['/executor/headers/x-key', (m: Record<string, unknown>) => (m.executor = { kind: 'http', url: 'http://127.0.0.1/', headers: { 'x-key': 1 } })],
    ['/executor/baseUrl', (m: Record<string, unknown>) => (m.executor = { kind: 'openapi', baseUrl: 'ftp://x', operations: {} })],
  ])('fails with INVALID_DEFINITION naming the file and %s', async (pointer, edit) => {
    const file = await builtMeta(edit);
    expect(() => readBuiltMeta(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'INVALID_DEFINITION', data: { file, pointer } }));
  });

  it('fails with CAPABILITY_NOT_FOUND or INVALID_JSON as the files are read', async () => {
    expect(() => readBuiltMeta(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }));
    const file = await builtMeta();
    await writeFile(file, '{"id": ');
    expect(() => readBuiltMeta(dir, 'trains')).toThrowError(expect.objectContaining({ code: 'INVALID_JSON', data: { id: 'trains', file } }));
  });
});
