// Stable codes for the small cases of issue 16: cyclic and bigint params, cyclic results, values that cannot be
// copied, through createSpace() in both isolation modes and through `mcp serve`'s execute tool (real MCP SDK client and
// server over the SDK's in-memory transport pair). None of them is INTERNAL.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { createCodeModeServer } from '@agent-spaces/server';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

const ECHO = {
  name: 'echo',
  functions: [
    { name: 'take', parameters: { type: 'object', properties: { value: {} } } },
    { name: 'cyclic' },
    { name: 'withFunction' },
  ],
  executor: { kind: 'runtime' },
};
const handlers = {
  echo: {
    take: (params: unknown) => params,
    cyclic: () => {
      const node: Record<string, unknown> = { name: 'node' };
      node.self = node;
      return node;
    },
    withFunction: () => ({ run: () => 1 }),
  },
};

beforeAll(async () => {
  project = await makeProject();
});

describe.each(['in-process', 'process'] as const)('createSpace, isolation %s', (isolation) => {
  let space: Space;

  beforeAll(async () => {
    space = await createSpace({ rootDir: project.dir, isolation, capabilities: [ECHO], handlers, typecheck: false });
  }, 60_000);

  afterAll(async () => {
    await space?.close();
  });

  const run = async (code: string) => {
    const result = await space.run(`import { echo } from '@capabilities/echo';\n${code}`);
    return result.ok ? { ok: true as const, value: result.result } : { ok: false as const, code: result.error.code, message: result.error.message };
  };

  it('refuses cyclic params with INVALID_PARAMS naming the path (docs/policies.md), catchable by agent code', async () => {
    const out = await run(`const a: any = { list: [] }; a.list.push(a);
try { await echo.take({ value: a }); } catch (e) { return [e.code, e.message]; }`);
    expect(out).toEqual({ ok: true, value: ['INVALID_PARAMS', expect.stringContaining('params/value/list/0: must not contain itself')] });
  });

  it('keeps bigint params and results as bigints (structured clone, docs/runtime.md)', async () => {
    expect(await run(`return await echo.take({ value: { big: 2n ** 70n, list: [1n] } });`)).toEqual({ ok: true, value: { value: { big: 2n ** 70n, list: [1n] } } });
  });

  it('keeps a cyclic result of a handler cyclic in the sandbox, and a cyclic run result cyclic on the host', async () => {
    const out = await run(`const node = await echo.cyclic(); return { same: node.self === node, node };`);
    expect(out.ok).toBe(true);
    const value = (out as { value: { same: boolean; node: { self: unknown } } }).value;
    expect(value.same).toBe(true);
    expect(value.node.self).toBe(value.node);
  });

  it('a handler result that cannot be copied is INVALID_RESULT for that call, and the run goes on', async () => {
    expect(await run(`try { await echo.withFunction(); } catch (e) { return e.code; }`)).toEqual({ ok: true, value: 'INVALID_RESULT' });
  });

  it('a run result that cannot be copied is RESULT_NOT_CLONEABLE', async () => {
    expect(await run(`return { run: () => 1 };`)).toMatchObject({ ok: false, code: 'RESULT_NOT_CLONEABLE' });
  });
});

describe('mcp serve execute', () => {
  it('returns a cyclic result with bigints as JSON, marking the cycle, instead of failing', async () => {
    const server = createCodeModeServer({ spaces: [{ id: 'plain', name: 'Plain', capabilities: [] }], space: { rootDir: project.dir } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'small-cases', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = (await client.callTool({
        name: 'execute',
        arguments: { code: 'const a: Record<string, unknown> = { n: 10n, m: new Map([[1n, "x"]]) }; a.self = a; return a;' },
      })) as CallToolResult;
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      expect(result.isError, text).toBeFalsy();
      expect(JSON.parse(text).result).toEqual({ n: '10', m: { $map: [['1', 'x']] }, self: { $circular: '/result' } });
    } finally {
      await client.close();
      await server.close();
    }
  }, 60_000);
});
