import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { CallMessage, CallOutcome, CapabilityMeta, CapabilitySchemaFile, HandlerContext, ObjectSchema, WireError } from '@agent-spaces/capabilities';
import type { HostCapability, HostFunction } from '../src/index.js';

type FunctionSpec = { name: string; sourceName?: string; parameters?: ObjectSchema; requiresApproval?: boolean; approvalMessage?: string };

/** Writes a built capability as the compiler would: meta.json, schema.json and optionally host.mjs (or raw file text). */
export async function writeCapability(
  outDir: string,
  options: {
    id: string;
    exportName?: string;
    executor: CapabilityMeta['executor'];
    functions: FunctionSpec[];
    config?: CapabilityMeta['config'];
    host?: string;
  },
): Promise<string> {
  const dir = join(outDir, options.id);
  await mkdir(dir, { recursive: true });
  const meta: CapabilityMeta = {
    id: options.id,
    exportName: options.exportName ?? options.id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
    sourceName: options.exportName ?? options.id,
    version: '1.0.0',
    source: { kind: 'json', file: `capabilities/${options.id}.json` },
    contentHash: 'test',
    config: options.config ?? {},
    executor: options.executor,
    functions: options.functions.map((f) => ({
      name: f.name,
      sourceName: f.sourceName ?? f.name,
      ...(f.requiresApproval !== undefined ? { requiresApproval: f.requiresApproval } : {}),
      ...(f.approvalMessage !== undefined ? { approvalMessage: f.approvalMessage } : {}),
    })),
    builtAt: new Date(0).toISOString(),
  };
  const schema: CapabilitySchemaFile = {
    id: options.id,
    functions: Object.fromEntries(
      options.functions.map((f) => [f.name, { parameters: f.parameters ?? { type: 'object', properties: {} } }]),
    ),
  };
  await writeFile(join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
  await writeFile(join(dir, 'schema.json'), JSON.stringify(schema, null, 2));
  if (options.host !== undefined) await writeFile(join(dir, 'host.mjs'), options.host);
  return dir;
}

/** A real HTTP server on 127.0.0.1; `requests` records every JSON body it received. */
export async function startServer(
  handle: (body: unknown, req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; requests: unknown[]; close: () => Promise<void> }> {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      requests.push(body);
      handle(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/call`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A host capability built in memory, for bridge tests that need no files. */
export function memoryCapability(
  id: string,
  functions: Array<Partial<HostFunction> & { name: string; run?: (params: Record<string, unknown>, context: HandlerContext) => unknown }>,
  config: HostCapability['config'] = {},
): HostCapability {
  return {
    id,
    exportName: id,
    config,
    functions: new Map(
      functions.map(({ run, ...fn }) => [
        fn.name,
        {
          sourceName: fn.name,
          parameters: { type: 'object', properties: {} },
          requiresApproval: false,
          execute: async (params: Record<string, unknown>, context: HandlerContext) => run?.(params, context),
          ...fn,
        },
      ]),
    ),
  };
}

/** A call message as the sandbox would send it; names may be anything, as forged ones can be. */
export function msg(capability: unknown, fn: unknown, params?: unknown): CallMessage {
  return { kind: 'call', capability, function: fn, params } as CallMessage;
}

/** The error of a failed outcome (fails the test on success). */
export function errorOf(outcome: CallOutcome): WireError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}
