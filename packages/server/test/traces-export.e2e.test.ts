// `mcp serve` exports run and call spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: a real collector
// stand-in (an HTTP server on 127.0.0.1) receives what the real exporter sends, after a real MCP client's execute.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callTool, newClient } from './support/client.js';
import { tsNodeArgs } from './support/child.js';
import { createProject, type TestProject } from './support/project.js';

const SECRET = 'tr4ce-me-not';
let project: TestProject;
let collector: Server;
let endpoint: string;
const bodies: string[] = [];

beforeAll(async () => {
  project = await createProject({
    'capabilities/greeter.json': JSON.stringify({
      name: 'greeter',
      description: 'Greets people',
      functions: [{ name: 'greet', description: 'Greet', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, returns: { type: 'string' } }],
      executor: { kind: 'module', module: './greeter.handlers.mjs' },
    }),
    'capabilities/greeter.handlers.mjs': 'export async function greet({ name }) { return `Hello, ${name.length}!`; }\n',
  });
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'] }));
  collector = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => collector.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => collector?.close(done));
  await project?.cleanup();
});

interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

describe('mcp serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it("exports a run span and its call's span to the collector, without params, and flushes them when it stops", async () => {
    const entry = fileURLToPath(new URL('./support/serve-entry.ts', import.meta.url));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...tsNodeArgs(entry), JSON.stringify({ stdio: true })],
      cwd: project.rootDir,
      env: { ...(process.env as Record<string, string>), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'spaces-under-test' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = newClient();
    await client.connect(transport);
    const run = await callTool(client, 'execute', { code: `import { greeter } from '@capabilities/greeter';\nexport default await greeter.greet({ name: '${SECRET}' });` });
    expect(run.body).toMatchObject({ result: `Hello, ${SECRET.length}!` });
    await client.close();
    await expect.poll(() => bodies.length, { timeout: 10_000 }).toBeGreaterThan(0);

    expect(stderr).toContain(`exporting traces to ${endpoint}`);
    const exported = bodies.map((body) => JSON.parse(body) as { resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[] });
    const resources = exported.flatMap((e) => e.resourceSpans);
    expect(resources[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'spaces-under-test' } });
    const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
    const runSpan = spans.find((s) => s.name === 'agent_spaces.run')!;
    const callSpan = spans.find((s) => s.name === 'agent_spaces.call')!;
    expect(attribute(runSpan, 'agent_spaces.outcome')).toEqual({ stringValue: 'ok' });
    expect(callSpan.parentSpanId).toBe(runSpan.spanId);
    expect(attribute(callSpan, 'agent_spaces.capability')).toEqual({ stringValue: 'greeter' });
    expect(attribute(callSpan, 'agent_spaces.function')).toEqual({ stringValue: 'greet' });
    expect(attribute(callSpan, 'agent_spaces.outcome')).toEqual({ stringValue: 'ok' });
    expect(bodies.join('\n')).not.toContain(SECRET);
  });
});
