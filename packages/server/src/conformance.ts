import type { ObjectSchema, RunEvent } from '@agent-spaces/capabilities';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext, ToolSpec } from './tools/types.js';

// The fixtures of the MCP conformance suite (@modelcontextprotocol/conformance, server mode), served only with
// `mcp serve --conformance-fixtures`: the tools, prompts and resources with the names and answers its scenarios expect,
// so that the whole suite runs against the real server. Nothing of a project's spaces depends on them.

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV file of no samples (8 kHz, 8-bit mono): its 44-byte header. */
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
const NO_ARGUMENTS: ObjectSchema = { type: 'object', properties: {}, additionalProperties: false };
const PAUSE_MS = 50;

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** A fixture tool answering `content` (text, image, audio, resource) whatever it is given. */
function answering(name: string, description: string, content: () => CallToolResult): ToolSpec {
  return { name, description, inputSchema: NO_ARGUMENTS, handler: () => Promise.resolve(content()) };
}

/** Hands a run event to the call's listeners, as a run would: its progress notifications and log messages follow. */
function emit(context: ToolContext, event: Record<string, unknown> & { type: RunEvent['type'] }, seq: number): void {
  context.runOptions.onEvent?.({ ...event, timestamp: new Date().toISOString(), runId: 'conformance', seq } as RunEvent);
}

/** The conformance suite's tools (`test_simple_text`, `test_image_content`, …). */
export function conformanceTools(): ToolSpec[] {
  return [
    answering('test_simple_text', 'Returns a simple text', () => ({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] })),
    answering('test_image_content', 'Returns an image', () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] })),
    answering('test_audio_content', 'Returns audio', () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] })),
    answering('test_embedded_resource', 'Returns an embedded resource', () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    })),
    answering('test_multiple_content_types', 'Returns text, an image and a resource', () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    })),
    {
      name: 'test_error_handling',
      description: 'Always fails',
      inputSchema: NO_ARGUMENTS,
      handler: () => Promise.reject(new Error('This tool intentionally returns an error for testing')),
    },
    {
      name: 'test_tool_with_logging',
      description: 'Logs three messages while it runs',
      inputSchema: NO_ARGUMENTS,
      async handler(_args, context) {
        const lines = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
        for (const [seq, message] of lines.entries()) {
          if (seq > 0) await pause();
          emit(context, { type: 'log', level: 'info', message }, seq);
        }
        return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
      },
    },
    {
      name: 'test_tool_with_progress',
      description: 'Reports progress three times',
      inputSchema: NO_ARGUMENTS,
      async handler(_args, context) {
        for (const [seq, progress] of [0, 50, 100].entries()) {
          if (seq > 0) await pause();
          emit(context, { type: 'progress', callId: 'conformance', capability: 'conformance', function: 'progress', progress, total: 100 }, seq);
        }
        return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
      },
    },
    ...askingTools(),
  ];
}

/** The fixture tools that ask the client something: sampling and three elicitations. */
function askingTools(): ToolSpec[] {
  const text = (description: string) => ({ type: 'string', description }) as const;
  return [
    {
      name: 'test_sampling',
      description: 'Asks the client for an LLM completion of `prompt`',
      inputSchema: { type: 'object', properties: { prompt: text('The prompt') }, required: ['prompt'] },
      async handler(args, { connection, requestId }) {
        const messages = [{ role: 'user' as const, content: { type: 'text' as const, text: String(args.prompt) } }];
        const reply = await connection.server.createMessage({ messages, maxTokens: 100 }, requestId === undefined ? {} : { relatedRequestId: requestId });
        const answer = reply.content;
        return { content: [{ type: 'text', text: `LLM response: ${!Array.isArray(answer) && answer.type === 'text' ? answer.text : JSON.stringify(answer)}` }] };
      },
    },
    eliciting('test_elicitation', { type: 'object', properties: { message: text('The message to show the user') }, required: ['message'] }, (args) => ({
      message: String(args.message),
      requestedSchema: { type: 'object', properties: { username: text("User's response"), email: text("User's email address") }, required: ['username', 'email'] },
    })),
    eliciting('test_elicitation_sep1034_defaults', NO_ARGUMENTS, () => ({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      },
    })),
    eliciting('test_elicitation_sep1330_enums', NO_ARGUMENTS, () => ({ message: 'Please select options from the enum fields', requestedSchema: ENUM_FORM })),
  ];
}

/** The five enum forms of SEP-1330. */
const ENUM_FORM = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
  },
} as unknown as ElicitRequestFormParams['requestedSchema'];

/** A fixture tool that asks the client to fill the form `params` makes of its arguments, and answers with what it did. */
function eliciting(name: string, inputSchema: ObjectSchema, params: (args: Record<string, unknown>) => Pick<ElicitRequestFormParams, 'message' | 'requestedSchema'>): ToolSpec {
  return {
    name,
    description: 'Asks the client to fill a form',
    inputSchema,
    async handler(args, { connection, requestId }) {
      const reply = await connection.server.elicitInput(params(args), requestId === undefined ? {} : { relatedRequestId: requestId });
      return { content: [{ type: 'text', text: `User response: action=${reply.action}, content=${JSON.stringify(reply.content ?? {})}` }] };
    },
  };
}

/** The conformance suite's prompts, and how each answers its arguments. */
const PROMPTS: { prompt: Prompt; get(args: Record<string, string>): GetPromptResult }[] = [
  {
    prompt: { name: 'test_simple_prompt', description: 'A simple prompt without arguments' },
    get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }),
  },
  {
    prompt: {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    get: ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  },
  {
    prompt: { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }] },
    get: ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri ?? 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  },
  {
    prompt: { name: 'test_prompt_with_image', description: 'A prompt with an image' },
    get: () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  },
];

/** The prompts a server serves without the fixtures. */
export interface ServedPrompts {
  list(): Prompt[];
  get(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult>;
}

/**
 * Adds the conformance suite's prompts (beside `served`), resources, resource template, subscriptions and completions to
 * `server`, before it connects.
 */
export function installConformanceFixtures(server: Server, served: ServedPrompts): void {
  server.registerCapabilities({ resources: { subscribe: true }, completions: {} });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...served.list(), ...PROMPTS.map((p) => p.prompt)] }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    const fixture = PROMPTS.find((p) => p.prompt.name === params.name);
    return fixture ? fixture.get(params.arguments ?? {}) : served.get(params.name, params.arguments);
  });
  const resource = (uri: string, name: string, mimeType: string) => ({ uri, name, description: `Conformance fixture ${name}`, mimeType });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [resource('test://static-text', 'static-text', 'text/plain'), resource('test://static-binary', 'static-binary', 'image/png'), resource('test://watched-resource', 'watched-resource', 'text/plain')],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', description: 'Data of one id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => readFixture(params.uri));
  const subscriptions = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, ({ params }) => (subscriptions.add(params.uri), {}));
  server.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => (subscriptions.delete(params.uri), {}));
  server.setRequestHandler(CompleteRequestSchema, ({ params }) => {
    const values = ['paris', 'park', 'party'].filter((word) => word.startsWith(params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
}

/** The contents of a fixture resource; throws for another URI. */
function readFixture(uri: string): ReadResourceResult {
  if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
  if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content.' }] };
  const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
  if (id === undefined) throw new Error(`No resource ${uri}`);
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
}
