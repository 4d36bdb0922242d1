// `mcp serve` over HTTP (a real child process, with a bearer token) in a project whose `std.crypto.hash` needs
// approval, MCP clients whose person never answers (so a gated call waits for an answer from anywhere else), and raw
// requests to its `/approvals` API: what the approvals tests of the server, the CLI and the console share.
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ApprovalView } from '@agent-spaces/bridge';
import { makeProject, type Project } from '../../../../test/fixtures/project.js';
import { callTool, newClient, type ToolAnswer } from './client.js';
import { HttpServe } from './serve.js';

/** The bearer token of every {@link GatedServe}. */
export const TOKEN = 'approvals-test-token-7c2e';

/** A built project where `std.crypto.hash` asks for approval (`policies` merged over that). */
export async function gatedProject(policies: Record<string, unknown> = {}): Promise<Project> {
  const project = await makeProject({
    'agent-spaces.config.json': { capabilities: [], policies: { rules: { 'std.crypto.hash': 'ask' }, ...policies } },
  });
  const report = await project.build();
  expect(report.totals.failed).toBe(0);
  return project;
}

/** Agent code hashing `data` with `std.crypto.hash`; a failed call returns `{ code, message }`. */
export function hashCode(data: string): string {
  return [
    `import { crypto } from '@agent-spaces/std';`,
    `try {`,
    `  return await crypto.hash('sha256', ${JSON.stringify(data)});`,
    `} catch (error) {`,
    `  const { code, message } = error as { code: string; message: string };`,
    `  return { code, message };`,
    `}`,
  ].join('\n');
}

/** An HTTP answer: status, headers and the body (parsed when it is JSON). */
export interface ApiReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field by the tests
  body: any;
}

/** `mcp serve --port 0 --auth-token TOKEN` in `project`, its MCP clients and its approvals API. */
export class GatedServe extends HttpServe {
  readonly #clients: Client[] = [];

  constructor(readonly project: Project) {
    super(project.dir, { 'auth-token': TOKEN });
  }

  /** The server's root URL, e.g. `http://127.0.0.1:40123`. */
  async base(): Promise<string> {
    return (await this.url()).replace(/\/mcp$/, '');
  }

  /**
   * Runs `code` through `execute` from a new client that declares form elicitation and never answers (its prompt stays
   * open), so that the run's gated calls wait for an answer from elsewhere. Resolves once the call was sent, with
   * its answer to come.
   */
  async startRun(code: string): Promise<{ answer: Promise<ToolAnswer> }> {
    const client = newClient(() => new Promise(() => undefined));
    await client.connect(new StreamableHTTPClientTransport(new URL(await this.url()), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    this.#clients.push(client);
    return { answer: callTool(client, 'execute', { code }) };
  }

  /** The pending request `match` picks, once the API lists it. */
  async pending(match: (view: ApprovalView) => boolean): Promise<ApprovalView> {
    return vi.waitFor(
      async () => {
        const { status, body } = await this.api('GET', '/approvals');
        expect(status).toBe(200);
        const found = (body.approvals as ApprovalView[]).find(match);
        if (!found) throw new Error(`not pending yet: ${JSON.stringify(body)}`);
        return found;
      },
      { timeout: 30_000, interval: 100 },
    );
  }

  /** A raw request to `path` (sent as written: no normalisation), with the token unless `headers` says otherwise. */
  async api(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<ApiReply> {
    const url = new URL(await this.base());
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, method, path, headers: { ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => {
          let parsed: unknown = data;
          try {
            parsed = JSON.parse(data);
          } catch {
            // HTML and text stay text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  /** The audit line of the call that hashed `data` once it ended (the one with an outcome). */
  async auditLine(data: string): Promise<Record<string, unknown>> {
    return vi.waitFor(
      async () => {
        const folder = this.project.path('.agent-spaces/audit');
        const files = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
        const lines = (await Promise.all(files.map((name) => readFile(join(folder, name), 'utf8')))).flatMap((text) => text.split('\n').filter(Boolean));
        const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => 'outcome' in l && (l.params as { data?: string }).data === data);
        if (!line) throw new Error(`no audit line for ${data} yet`);
        return line;
      },
      { timeout: 10_000, interval: 50 },
    );
  }

  /** Closes the clients, then stops the server. */
  override async stop(): Promise<number | null> {
    await Promise.all(this.#clients.map((c) => c.close().catch(() => undefined)));
    return super.stop();
  }
}
