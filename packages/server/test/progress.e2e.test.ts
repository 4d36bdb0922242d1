import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ProgressNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { HandlerContext } from '@agent-spaces/capabilities';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createServerLog } from '../src/log.js';
import { createCodeModeHost, type CodeModeHost, type CodeModeServerOptions } from '../src/server.js';
import { newClient, type ElicitAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

// Progress notifications and cancellation of tools/call, with the official SDK client over Streamable HTTP.

const SLOW = {
  name: 'slow',
  description: 'Slow work',
  functions: [
    {
      name: 'steps',
      description: 'Reports progress `count` times, then answers',
      parameters: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      returns: { type: 'string' },
    },
    { name: 'hold', description: 'Answers when the test releases it or the call is aborted', parameters: { type: 'object', properties: {} }, returns: { type: 'string' } },
  ],
  executor: { kind: 'runtime' },
};

const STEPS = "import { slow } from '@capabilities/slow';\nexport default await slow.steps({ count: 2 });";
const HOLD = "import { slow } from '@capabilities/slow';\nexport default await slow.hold();";
const DELETE = "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();";
const GUARDED_DELETE = `import { vault } from '@capabilities/vault';\ntry { await vault.deleteSecrets(); } catch (e) { return (e as { code: string }).code; }`;

/** Every `slow.hold` call that reached its handler: its signal, and how to release it. */
const holds: { signal: AbortSignal; release: () => void }[] = [];
const logLines: string[] = [];
let project: TestProject;
const servers: { host: CodeModeHost; http: HttpServerHandle }[] = [];

async function serve(options: Partial<CodeModeServerOptions> = {}): Promise<string> {
  const host = createCodeModeHost({
    spaces: [
      {
        id: 'slow',
        name: 'Slow',
        tools: [
          {
            name: 'two_steps',
            description: 'Runs slow.steps',
            parameters: { type: 'object', properties: {} },
            code: "import { slow } from '@capabilities/slow';\nreturn await slow.steps({ count: 2 });",
          },
        ],
      },
    ],
    space: {
      rootDir: project.rootDir,
      handlers: {
        ...project.handlers,
        slow: {
          steps: ({ count }: { count: number }, context: HandlerContext) => {
            for (let step = 1; step <= count; step++) context.progress({ progress: step, total: count, message: `step ${step}` });
            return 'done';
          },
          hold: (_params: object, context: HandlerContext) =>
            new Promise<string>((resolve) => {
              holds.push({ signal: context.signal, release: () => resolve('released') });
              context.signal.addEventListener('abort', () => resolve('aborted'));
            }),
        },
      },
    },
    progressIntervalSeconds: 0.05,
    log: createServerLog({ format: 'json', write: (line) => logLines.push(line) }),
    ...options,
  });
  const http = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: false });
  servers.push({ host, http });
  return http.url;
}

let url: string;

beforeAll(async () => {
  project = await createProject({ 'capabilities/slow.json': JSON.stringify(SLOW) });
  url = await serve();
});

afterAll(async () => {
  for (const { host, http } of servers) {
    await http.close();
    await host.close();
  }
  await project?.cleanup();
});

async function connect(elicit?: ElicitAnswer, at = url): Promise<Client> {
  const client = newClient(elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(at)));
  return client;
}

/** Calls a tool with a progress token (the SDK adds one for `onprogress`); resolves with its JSON body and the progress seen. */
async function callWithProgress(client: Client, name: string, args: Record<string, unknown>, onProgress?: (progress: Progress) => void) {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: (p) => {
      progress.push(p);
      onProgress?.(p);
    },
  })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a user-defined tool's string result is plain text
  }
  return { body, progress, messages: progress.map((p) => p.message ?? '').filter((m) => !m.startsWith('running for')) };
}

function expectStrictlyIncreasing(progress: readonly Progress[]): void {
  expect(progress.length).toBeGreaterThan(0);
  progress.forEach((p, i) => {
    if (i > 0) expect(p.progress).toBeGreaterThan(progress[i - 1]!.progress);
  });
}

/** How long a poll waits for something a run does (a cold run typechecks and starts a sandbox first). */
const RUN = { timeout: 20_000 };

/**
 * A client whose person declines the first approval prompt and never answers the later ones; `asked` holds each
 * prompt's signal. The declined prompt is asked first, through {@link declineFirst}, so that the prompts under test are
 * not the server's first request to this client: SDK clients before typescript-sdk#2283 was fixed ignore a
 * cancellation of request id 0.
 */
async function connectAsking(at = url): Promise<{ client: Client; asked: AbortSignal[] }> {
  const asked: AbortSignal[] = [];
  const client = await connect((_request, { signal }) => {
    asked.push(signal);
    return asked.length === 1 ? { action: 'decline' } : new Promise(() => undefined);
  }, at);
  const first = await callWithProgress(client, 'execute', { code: GUARDED_DELETE });
  expect(first.body).toMatchObject({ result: 'APPROVAL_DENIED' });
  return { client, asked };
}

/** The parsed `tool.called` log lines. */
function toolCalls(): Record<string, unknown>[] {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.event === 'tool.called');
}

describe('progress notifications of a tools/call with a progressToken', () => {
  it('execute: one when each capability call starts and finishes, with upstream progress and its message in between', async () => {
    const client = await connect();
    const code = `import { trainSchedule } from '@capabilities/trains';\n${STEPS.replace('export default ', 'const done = ')}\nawait trainSchedule.getSchedule({});\nexport default done;`;
    const { body, progress, messages } = await callWithProgress(client, 'execute', { code });
    expect(body).toMatchObject({ result: 'done' });
    expect(messages).toEqual([
      'slow.steps started',
      'slow.steps: step 1 (1/2)',
      'slow.steps: step 2 (2/2)',
      expect.stringMatching(/^slow\.steps ok in \d+ ms$/),
      'trains.getSchedule started',
      expect.stringMatching(/^trains\.getSchedule ok in \d+ ms$/),
    ]);
    expectStrictlyIncreasing(progress);
    await client.close();
  });

  it('names a failed call’s error code, and a call waiting for approval', async () => {
    const client = await connect(() => ({ action: 'decline' }));
    const { body, messages } = await callWithProgress(client, 'execute', { code: GUARDED_DELETE });
    expect(body).toMatchObject({ result: 'APPROVAL_DENIED' });
    expect(messages).toEqual(['vault.deleteSecrets started', 'vault.deleteSecrets waits for approval', 'vault.deleteSecrets failed: APPROVAL_DENIED']);
    await client.close();
  });

  it('send_code and user-defined tools report their runs’ calls too', async () => {
    const client = await connect();
    const { body: session } = await callWithProgress(client, 'create_session', {});
    const { sessionId } = session as { sessionId: string };
    const sent = await callWithProgress(client, 'send_code', { sessionId, code: STEPS });
    expect(sent.body).toMatchObject({ sessionId, result: 'done' });
    const tool = await callWithProgress(client, 'two_steps', {});
    expect(tool.body).toBe('done');
    for (const { messages, progress } of [sent, tool]) {
      expect(messages.slice(0, 3)).toEqual(['slow.steps started', 'slow.steps: step 1 (1/2)', 'slow.steps: step 2 (2/2)']);
      expectStrictlyIncreasing(progress);
    }
    await client.close();
  });

  it('sends a heartbeat while the run goes on without calls finishing', async () => {
    const client = await connect();
    const before = holds.length;
    // The held call answers only once a heartbeat has arrived.
    const { body, progress } = await callWithProgress(client, 'execute', { code: HOLD }, (p) => {
      if (p.message?.startsWith('running for') && holds.length > before) holds.at(-1)!.release();
    });
    expect(body).toMatchObject({ result: 'released' });
    const messages = progress.map((p) => p.message);
    const started = messages.indexOf('slow.hold started');
    expect(started).toBeGreaterThanOrEqual(0);
    expect(messages.slice(started + 1).some((m) => /^running for \d+ s$/.test(m ?? ''))).toBe(true);
    expect(messages.at(-1)).toMatch(/^slow\.hold ok in \d+ ms$/);
    expectStrictlyIncreasing(progress);
    await client.close();
  });

  it('sends none without a progressToken, even past the heartbeat interval', async () => {
    const client = await connect();
    const received: unknown[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, (notification) => void received.push(notification));
    const before = holds.length;
    const call = client.callTool({ name: 'execute', arguments: { code: HOLD } });
    await expect.poll(() => holds.length, RUN).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    holds.at(-1)!.release();
    expect((await call).isError).not.toBe(true);
    expect(received).toEqual([]);
    await client.close();
  });
});

describe('a cancelled tools/call', () => {
  it('aborts its run: a long capability call sees its signal abort, and the call is logged as cancelled', async () => {
    const client = await connect();
    const before = holds.length;
    const controller = new AbortController();
    const call = client.callTool({ name: 'execute', arguments: { code: HOLD } }, CallToolResultSchema, { signal: controller.signal });
    await expect.poll(() => holds.length, RUN).toBe(before + 1);
    controller.abort('the person pressed stop');
    await expect(call).rejects.toThrow('the person pressed stop');
    await expect.poll(() => holds.at(-1)!.signal.aborted, RUN).toBe(true);
    await expect.poll(() => toolCalls().find((c) => c.cancelled === true), RUN).toMatchObject({ tool: 'execute', ok: false, code: 'ABORTED' });
    await client.close();
  });

  it('withdraws its open elicitation: the client’s handler sees its signal abort, and the gated call never runs', async () => {
    const { client, asked } = await connectAsking();
    const deletions = project.deletions.length;
    const controller = new AbortController();
    const call = client.callTool({ name: 'execute', arguments: { code: DELETE } }, CallToolResultSchema, { signal: controller.signal });
    await expect.poll(() => asked.length, RUN).toBe(2);
    expect(asked[1]!.aborted).toBe(false);
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => asked[1]!.aborted, RUN).toBe(true);
    expect(project.deletions.length).toBe(deletions);
    await client.close();
  });

  it('withdraws an elicitation nobody answered in time, and denies the call', async () => {
    const { client, asked } = await connectAsking(await serve({ approvalTimeoutSeconds: 0.3 }));
    const deletions = project.deletions.length;
    const { body } = await callWithProgress(client, 'execute', { code: GUARDED_DELETE });
    expect(body).toMatchObject({ result: 'APPROVAL_DENIED' });
    await expect.poll(() => asked[1]?.aborted, RUN).toBe(true);
    expect(project.deletions.length).toBe(deletions);
    await client.close();
  });
});

describe('progressIntervalSeconds', () => {
  it('is refused with CONFIG_INVALID naming it unless it is a number from 0.01 to 3600', () => {
    for (const bad of [0, -1, 0.001, 3601, Number.NaN, Number.POSITIVE_INFINITY, '5', null]) {
      expect(() => createCodeModeHost({ spaces: [{ id: 'x', name: 'X' }], progressIntervalSeconds: bad as number })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('progressIntervalSeconds') }),
      );
    }
  });
});
