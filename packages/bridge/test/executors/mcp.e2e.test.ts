import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectSchema } from '@agent-spaces/capabilities';
import { McpClientPool, discover } from '@agent-spaces/mcp';
import { createBridge, loadCapabilities } from '../../src/index.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { errorOf, msg, writeCapability } from '../fixtures.js';

const memoryScript = fileURLToPath(new URL('../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url));
const signal = new AbortController().signal;
const entities: ObjectSchema = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, entityType: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } },
        required: ['name', 'entityType', 'observations'],
      },
    },
  },
  required: ['entities'],
};

let outDir: string;
let pool: McpClientPool;
let toolsHash: string;

/** Writes `mcp-memory` as the compiler would, with the given tools hash. */
function writeMemory(id: string, hash: string): Promise<string> {
  return writeCapability(outDir, {
    id,
    exportName: 'memory',
    executor: { kind: 'mcp', server: 'memory', toolsHash: hash },
    functions: [
      { name: 'createEntities', sourceName: 'create_entities', parameters: entities },
      { name: 'readGraph', sourceName: 'read_graph' },
      { name: 'deleteEntities', sourceName: 'delete_entities', requiresApproval: true },
    ],
  });
}

beforeAll(async () => {
  ({ dir: outDir } = await makeProject());
  const servers = { memory: { command: process.execPath, args: [memoryScript], env: { MEMORY_FILE_PATH: join(outDir, 'memory.jsonl') } } };
  toolsHash = (await discover('memory', servers.memory)).toolsHash;
  pool = new McpClientPool(servers);
  await writeMemory('mcp-memory', toolsHash);
  await writeMemory('mcp-memory-old', 'a'.repeat(64));
});
afterAll(() => pool.close());

describe('mcp executor', () => {
  it('fails to load without a client pool, naming the capability and server', async () => {
    await expect(loadCapabilities(outDir, ['mcp-memory'])).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { id: 'mcp-memory', server: 'memory' },
    });
  });

  it('calls the tool named by sourceName through the pool and resolves to its structured result', async () => {
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['mcp-memory'], undefined, { mcp: pool }) });
    const created = await bridge.call(
      msg('mcp-memory', 'createEntities', { entities: [{ name: 'Central', entityType: 'station', observations: ['platform 4'] }] }),
      signal,
    );
    expect(created.ok).toBe(true);
    const graph = await bridge.call(msg('mcp-memory', 'readGraph', {}), signal);
    expect(graph).toEqual({ ok: true, value: { entities: [{ name: 'Central', entityType: 'station', observations: ['platform 4'] }], relations: [] } });
  });

  it('validates params against the tool schema before anything is sent', async () => {
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['mcp-memory'], undefined, { mcp: pool }) });
    const outcome = await bridge.call(msg('mcp-memory', 'createEntities', { entities: [{ name: 'x' }] }), signal);
    expect(errorOf(outcome).code).toBe('INVALID_PARAMS');
  });

  it('asks for approval of a destructive tool under the default policy', async () => {
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['mcp-memory'], undefined, { mcp: pool }) });
    const outcome = await bridge.call(msg('mcp-memory', 'deleteEntities', { entityNames: ['Central'] }), signal);
    expect(errorOf(outcome).code).toBe('APPROVAL_DENIED');
  });

  it('fails every call with CAPABILITY_STALE when the tools differ from the build', async () => {
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['mcp-memory-old'], undefined, { mcp: pool }) });
    const error = errorOf(await bridge.call(msg('mcp-memory-old', 'readGraph', {}), signal));
    expect(error).toMatchObject({ code: 'CAPABILITY_STALE', data: { server: 'memory', actualHash: toolsHash } });
    expect(error.message).toContain('agent-spaces capabilities build');
  });
});
