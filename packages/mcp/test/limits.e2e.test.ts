// Stable codes at the edges of an MCP call, against the official `everything` server over stdio: a result larger than
// the stdio client reads is PAYLOAD_TOO_LARGE (not MCP_UNAVAILABLE) and the next call works; params JSON cannot carry
// are INVALID_PARAMS, and the connection stays up.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerContext } from '@agent-spaces/capabilities';
import { McpClientPool, createMcpExecutor } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { officialServers } from './servers.js';

let dir: string;
let pool: McpClientPool;
let files: Server;
let blobUrl: string;

beforeAll(async () => {
  ({ dir } = await makeProject());
  pool = new McpClientPool({ everything: officialServers(dir).everything });
  // 9 MB of random bytes: under the server's own fetch limit (10 MB), and about 12 MB once gzipped and in base64.
  const blob = randomBytes(9_000_000);
  files = createServer((_, response) => response.end(blob));
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  blobUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/blob.bin`;
});

afterAll(async () => {
  await pool.close();
  await new Promise((resolve) => files.close(resolve));
});

const context = (): HandlerContext => ({ capability: 'mcp-everything', function: 'tool', signal: new AbortController().signal, progress: () => undefined });

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: { code: string; message: string; data: Record<string, unknown> }) => error,
  );
}

describe('an oversized tool result', () => {
  it('is PAYLOAD_TOO_LARGE naming the server and the limit, and the next call starts the server again', async () => {
    const error = await failure(pool.callTool('everything', 'gzip-file-as-resource', { name: 'big.gz', data: blobUrl, outputType: 'resource' }));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.data).toMatchObject({ server: 'everything', limit: 10 * 1024 * 1024, direction: 'result' });
    expect(error.message).toContain('MCP server "everything"');
    const echo = await pool.callTool('everything', 'echo', { message: 'still here' });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: still here' }]);
  }, 60_000);

  it('a result under the limit comes back whole', async () => {
    const small = randomBytes(1000).toString('base64');
    const result = await pool.callTool('everything', 'gzip-file-as-resource', { name: 'small.gz', data: `data:application/octet-stream;base64,${small}`, outputType: 'resource' });
    expect(result.content[0]).toMatchObject({ type: 'resource', resource: { mimeType: 'application/gzip' } });
  });
});

describe('params JSON cannot carry', () => {
  const execute = () => createMcpExecutor(pool, { server: 'everything' });

  it.each([
    ['a bigint', { message: 'x', extra: 1n }, 'params/extra is a bigint'],
    ['a nested bigint', { message: 'x', extra: { ids: [1n] } }, 'params/extra/ids/0 is a bigint'],
    ['NaN', { message: 'x', extra: NaN }, 'params/extra is NaN'],
    ['a Map', { message: 'x', extra: new Map() }, 'params/extra is a Map'],
  ])('%s is INVALID_PARAMS naming the field, and the connection stays up', async (_, params, message) => {
    const error = await failure(execute()({ sourceName: 'echo' }, params, context()));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain(message);
    expect(await execute()({ sourceName: 'echo' }, { message: 'after' }, context())).toMatchObject({ text: 'Echo: after' });
  });
});
