import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * How a test client answers elicitation requests (`signal` aborts when the server withdraws the request); without it
 * the client does not declare the capability.
 */
export type ElicitAnswer = (request: ElicitRequest, extra: { signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;

/** Configures a new SDK client, declaring form elicitation when `elicit` is given. */
export function newClient(elicit?: ElicitAnswer): Client {
  const client = new Client({ name: 'agent-spaces-test', version: '1.0.0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicit(request, extra));
  return client;
}

/** An SDK client connected to `server` over the SDK's in-memory transport pair. */
export async function connectInMemory(server: Server, elicit?: ElicitAnswer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = newClient(elicit);
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** A tool result's text and, when it is JSON, its parsed value. */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed JSON of many tools' answers, read field by field by the tests
  body: any;
}

/** What {@link callTool} needs of a client: the 1.x SDK's (2025-11-25) or the v2 SDK's (2026-07-28). */
interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** Calls tool `name` with either SDK's client and reads its single text content. */
export async function callTool(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain-text answers (search, describe) stay text
  }
  return { isError: result.isError === true, text, body };
}
