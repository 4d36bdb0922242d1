import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CreateMessageRequestSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
} from '@modelcontextprotocol/sdk/types.js';
import type { PromptTool } from '../src/config.js';
import { startHttpServer } from '../src/http.js';
import { createCodeModeHost, createCodeModeServer } from '../src/server.js';
import { callTool } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const BOOK_FLIGHT: PromptTool = {
  name: 'book_flight',
  description: 'Books a flight ticket for a user.',
  parameters: {
    type: 'object',
    properties: { destination: { type: 'string' }, departure_date: { type: 'string' } },
    required: ['destination', 'departure_date'],
  },
  prompt: 'The user wants to book a flight to {destination} on {departure_date}, please book accordingly',
};
const PARIS = { destination: 'Paris, France', departure_date: '2026-12-01' };
const CODE = "import { trainSchedule } from '@capabilities/trains';\nexport default (await trainSchedule.getSchedule({ station: 'Central' }))[0]!.id;";

/** The code runs among an agent run's events (seed 004's tool_call, tool_response and agent_message aside). */
const codeRuns = (content: unknown): unknown[] => (content as { events: Array<{ type: string }> }).events.filter((e) => e.type === 'code_run');

type Answer = (request: CreateMessageRequest['params']) => CreateMessageResult | CreateMessageResultWithTools;

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

afterAll(async () => {
  await project?.cleanup();
});

/**
 * A server with a configured model that must not be used (sampling comes first) and an SDK client declaring
 * `capabilities` whose sampling handler answers from `answers` in turn, recording each request.
 */
async function connect(capabilities: ClientCapabilities, answers: Answer[]) {
  const requests: CreateMessageRequest['params'][] = [];
  const server = createCodeModeServer({
    spaces: [{ id: 'travel', name: 'Travel', tools: [BOOK_FLIGHT] }],
    model: { provider: 'openai-compatible', model: 'unused', baseURL: 'http://127.0.0.1:9/v1' },
    space: { rootDir: project.rootDir, handlers: project.handlers },
  });
  const client = new Client({ name: 'sampling-test', version: '1.0.0' }, { capabilities });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    requests.push(request.params);
    const answer = answers[Math.min(requests.length, answers.length) - 1]!;
    return answer(request.params);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, requests };
}

const text = (value: string): Answer => () => ({ role: 'assistant', model: 'client-model', content: { type: 'text', text: value } });

describe('prompt tools answered by the client’s model through MCP sampling', () => {
  it('use native tool use when the client declared sampling.tools', async () => {
    const { client, requests } = await connect({ sampling: { tools: {} } }, [
      () => ({ role: 'assistant', model: 'client-model', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 'tu-1', name: 'execute', input: { code: CODE } }] }),
      text('Booked IC 1.'),
    ]);
    try {
      const result = (await client.callTool({ name: 'book_flight', arguments: PARIS })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'Booked IC 1.' }]);
      expect(result.structuredContent).toMatchObject({ metadata: { turns: 2, tool_calls: 1, code_runs: 1, capability_calls: 1, tokens_estimated: true } });
      expect(codeRuns(result.structuredContent)).toMatchObject([{ type: 'code_run', ok: true, result: 'IC 1', capability_calls: [expect.objectContaining({ function: 'getSchedule' })] }]);
      // Sampling reports no usage: counted with a tokenizer (the system prompt alone is hundreds of tokens).
      expect((result.structuredContent as { metadata: { tokens_used: number } }).metadata.tokens_used).toBeGreaterThan(100);
      expect(requests[0]!.systemPrompt).toContain('You are now working in the space "Travel"');
      expect(requests[0]!.tools?.map((t) => t.name)).toEqual(['execute', 'search_capabilities', 'describe_capabilities']);
      expect(requests[0]!.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'The user wants to book a flight to Paris, France on 2026-12-01, please book accordingly' } },
      ]);
      const last = requests[1]!.messages.at(-1)!;
      expect(last.role).toBe('user');
      expect(last.content).toEqual([expect.objectContaining({ type: 'tool_result', toolUseId: 'tu-1', isError: false })]);
    } finally {
      await client.close();
    }
  });

  it('use the text protocol when the client declared sampling without tools', async () => {
    const call = `Let me look.\n<tool_call>${JSON.stringify({ name: 'execute', input: { code: CODE } })}</tool_call>`;
    const { client, requests } = await connect({ sampling: {} }, [text(call), text('Booked IC 1 (text).')]);
    try {
      const result = (await client.callTool({ name: 'book_flight', arguments: PARIS })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ response: 'Booked IC 1 (text).', metadata: { turns: 2 } });
      expect(codeRuns(result.structuredContent)).toMatchObject([{ ok: true, result: 'IC 1' }]);
      expect(requests[0]!.tools).toBeUndefined();
      expect(requests[0]!.systemPrompt).toContain('<tool_call>');
      expect(requests[1]!.messages[1]).toEqual({ role: 'assistant', content: { type: 'text', text: call } });
      const results = requests[1]!.messages[2]!.content as { type: string; text: string };
      expect(results.text).toMatch(/^<tool_result name="execute">\{.*"result":"IC 1"/);
    } finally {
      await client.close();
    }
  });

  it('answer unparseable text-protocol calls with an error the model reads', async () => {
    const { client, requests } = await connect({ sampling: {} }, [text('<tool_call>{not json</tool_call>'), text('gave up')]);
    try {
      const answer = await callTool(client, 'book_flight', PARIS);
      expect(answer).toMatchObject({ isError: false, text: 'gave up' });
      const results = requests[1]!.messages[2]!.content as { text: string };
      expect(results.text).toContain('error="true"');
      expect(results.text).toContain('TOOL_NOT_FOUND');
    } finally {
      await client.close();
    }
  });

  it('give a client that declines sampling a MODEL_ERROR with its reason', async () => {
    const { client } = await connect({ sampling: {} }, [
      () => {
        throw new McpError(ErrorCode.InvalidRequest, 'User rejected sampling request');
      },
    ]);
    try {
      const answer = await callTool(client, 'book_flight', PARIS);
      expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_ERROR', data: { reason: 'sampling' } } });
      expect(answer.body.message).toContain('User rejected sampling request');
    } finally {
      await client.close();
    }
  });
});

describe('sampling over Streamable HTTP', () => {
  it('answers a prompt tool through the client’s sampling over Streamable HTTP', async () => {
    const host = createCodeModeHost({ spaces: [{ id: 'travel', name: 'Travel', tools: [BOOK_FLIGHT] }], space: { rootDir: project.rootDir, handlers: project.handlers } });
    const http = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: { requests: 1000, windowSeconds: 60 } });
    const client = new Client({ name: 'sampling-http', version: '1.0.0' }, { capabilities: { sampling: { tools: {} } } });
    const answers: Answer[] = [
      () => ({ role: 'assistant', model: 'm', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 'tu-1', name: 'execute', input: { code: CODE } }] }),
      text('Booked over HTTP.'),
    ];
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, (request) => answers[asked++]!(request.params));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const result = (await client.callTool({ name: 'book_flight', arguments: PARIS })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'Booked over HTTP.' }]);
      expect(result.structuredContent).toMatchObject({ metadata: { turns: 2 } });
      expect(codeRuns(result.structuredContent)).toMatchObject([{ ok: true, result: 'IC 1' }]);
      expect(asked).toBe(2);
    } finally {
      await client.close();
      await http.close();
      await host.close();
    }
  });
});
