import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER, Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError, toJsonRpcError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { DEFAULT_MAX_TURNS } from '@agent-spaces/sdk';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isPromptTool, type A2ASettings, type PromptTool, type SpaceDefinition } from '../config.js';
import { SERVER_VERSION } from '../server.js';
import { agentResult, runHeadless } from '../tools/prompt.js';
import { BoundedTaskStore } from './a2a-store.js';
import type { AgentSurface } from './surface.js';

/** The A2A server of one code-mode host: its agent card, and its JSON-RPC endpoint on node:http. */
export interface A2AServer {
  /** The agent card (JSON), naming `url` as the JSON-RPC endpoint. */
  card(url: string): AgentCard;
  /** Answers one JSON-RPC request `body` for the principal `authInfo` proves: JSON, or SSE for a streaming method. */
  handle(req: IncomingMessage, res: ServerResponse, body: string, authInfo: AuthInfo | undefined): Promise<void>;
}

/** Default most running tasks of one principal. */
const DEFAULT_MAX_TASKS = 4;
/** Where a call's credentials travel in the SDK's `ServerCallContext.state`. */
const AUTH_KEY = 'agentSpacesAuth';

/**
 * Seed 000's Autonomous mode on the A2A SDK: the space `settings.space` (default: the first) as an A2A agent whose
 * skills are its prompt tools. A message naming a skill in `metadata.skillId` runs that prompt tool with the arguments
 * of its data part; any other message is answered by the space's headless agent from its text. Tasks go working →
 * completed (the answer as a message and an artifact with a text and a data part) or failed.
 */
export function createA2AServer(surface: AgentSurface, settings: A2ASettings): A2AServer {
  const space = () => surface.state.spaces.find((s) => s.id === settings.space) ?? surface.state.spaces[0]!;
  const running = new Map<string, number>();
  const executor = new SpaceExecutor(surface, space, running);
  const maxTasks = settings.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS;
  let cardUrl = '';
  const check = (message: Message | undefined, context: ServerCallContext) => {
    const skillId = message?.metadata?.skillId as unknown;
    const skills = promptTools(space()).map((t) => t.name);
    if (skillId !== undefined && (typeof skillId !== 'string' || !skills.includes(skillId))) {
      throw new RequestMalformedError({ message: `No skill "${String(skillId)}" (skills: ${skills.join(', ') || 'none'})`, metadata: { skillId: String(skillId) } });
    }
    const principal = context.user?.userName ?? '';
    if ((running.get(principal) ?? 0) >= maxTasks) {
      throw new UnsupportedOperationError({ message: `This principal has ${maxTasks} tasks running (server.a2a.maxTasksPerPrincipal): wait for one to end` });
    }
  };
  class CheckedHandler extends DefaultRequestHandler {
    override async sendMessage(...args: Parameters<DefaultRequestHandler['sendMessage']>) {
      check(args[0].message, args[1]);
      return super.sendMessage(...args);
    }
    override async *sendMessageStream(...args: Parameters<DefaultRequestHandler['sendMessageStream']>) {
      check(args[0].message, args[1]);
      yield* super.sendMessageStream(...args);
    }
  }
  const handler = new CheckedHandler(lazyCard(() => agentCard(space(), cardUrl)), new BoundedTaskStore(), executor);
  const transport = new JsonRpcTransportHandler(handler);
  return {
    card(url) {
      cardUrl = url;
      return agentCard(space(), url);
    },
    handle: (req, res, body, authInfo) => serveJsonRpc(transport, agentCard(space(), cardUrl), req, res, body, authInfo, surface),
  };
}

/** An agent card the request handler reads with each request (a reload may change the space). */
function lazyCard(card: () => AgentCard): AgentCard {
  return new Proxy({} as AgentCard, { get: (_, key) => card()[key as keyof AgentCard] });
}

/** The agent card of `space`: its prompt tools as skills, each describing its arguments (a JSON Schema). */
function agentCard(space: SpaceDefinition, url: string): AgentCard {
  return {
    name: space.name,
    description: space.description ?? `The agent-spaces space "${space.name}"`,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: space.version ?? SERVER_VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: promptTools(space).map((tool) => ({
      id: tool.name,
      name: tool.name,
      description: `${tool.description}\n\nSend metadata.skillId "${tool.name}" and the arguments as a data part matching this JSON Schema: ${JSON.stringify(tool.parameters)}`,
      tags: ['prompt-tool'],
      examples: [],
      inputModes: ['application/json'],
      outputModes: ['text/plain', 'application/json'],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

function promptTools(space: SpaceDefinition): PromptTool[] {
  return (space.tools ?? []).filter(isPromptTool);
}

/**
 * Serves one JSON-RPC request as the SDK's Express handler does, on node:http: the call context carries the
 * principal (which scopes its tasks) and the requested version and extensions; a streaming method answers SSE.
 */
async function serveJsonRpc(
  transport: JsonRpcTransportHandler,
  card: AgentCard,
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  authInfo: AuthInfo | undefined,
  surface: AgentSurface,
): Promise<void> {
  const principal = surface.connection(authInfo).principal.id;
  const header = (name: string) => [req.headers[name.toLowerCase()]].flat()[0];
  const context = new ServerCallContext({
    user: { isAuthenticated: authInfo !== undefined, userName: principal },
    requestedExtensions: Extensions.parseServiceParameter(header(HTTP_EXTENSION_HEADER)),
    ...(header(A2A_VERSION_HEADER) ? { requestedVersion: header(A2A_VERSION_HEADER)! } : {}),
    state: new Map([[AUTH_KEY, authInfo]]),
  });
  let answer: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
  try {
    validateVersion(context.requestedVersion, card, 'JSONRPC');
    answer = await transport.handle(body, context);
  } catch (error) {
    return sendJson(res, 200, { jsonrpc: '2.0', id: null, error: toJsonRpcError(error) });
  }
  if (!(Symbol.asyncIterator in answer)) return sendJson(res, 200, answer);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  try {
    for await (const event of answer) res.write(`data: ${JSON.stringify(event)}\n\n`);
  } catch (error) {
    res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: toJsonRpcError(error) })}\n\n`);
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** The A2A SDK's executor pattern over the space: each task runs a prompt tool or the headless agent. */
class SpaceExecutor implements AgentExecutor {
  readonly #surface: AgentSurface;
  readonly #space: () => SpaceDefinition;
  readonly #running: Map<string, number>;
  readonly #cancels = new Map<string, AbortController>();

  constructor(surface: AgentSurface, space: () => SpaceDefinition, running: Map<string, number>) {
    this.#surface = surface;
    this.#space = space;
    this.#running = running;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const principal = request.context.user?.userName ?? '';
    const cancel = new AbortController();
    this.#cancels.set(taskId, cancel);
    this.#running.set(principal, (this.#running.get(principal) ?? 0) + 1);
    try {
      if (!request.task) bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [userMessage], metadata: {} }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      const result = await this.#answer(userMessage, request.context.state.get(AUTH_KEY) as AuthInfo | undefined, cancel.signal);
      if (cancel.signal.aborted) return;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      const parts = [textPart(text), ...(result.structuredContent ? [dataPart(result.structuredContent)] : [])];
      if (!result.isError) {
        bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: randomUUID(), name: 'answer', description: '', parts, metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      }
      const state = result.isError ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED;
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, agentMessage(taskId, contextId, parts)), metadata: undefined }));
    } finally {
      this.#cancels.delete(taskId);
      this.#running.set(principal, (this.#running.get(principal) ?? 1) - 1);
      if (this.#running.get(principal) === 0) this.#running.delete(principal);
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const cancel = this.#cancels.get(taskId);
    cancel?.abort();
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
  }

  /** Runs the skill `message` names with its data part, or the headless agent on its text. */
  async #answer(message: Message, authInfo: AuthInfo | undefined, signal: AbortSignal): Promise<CallToolResult> {
    const connection = this.#surface.connection(authInfo);
    const skillId = message.metadata?.skillId as string | undefined;
    if (skillId !== undefined) {
      const data = message.parts.find((p) => p.content?.$case === 'data')?.content?.value as unknown;
      const args = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
      return this.#surface.callTool(connection, skillId, args, signal);
    }
    const text = message.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
    if (text.trim() === '') {
      return { isError: true, content: [{ type: 'text', text: 'INVALID_ARGUMENTS: a message without metadata.skillId needs a text part' }] };
    }
    try {
      return agentResult(await runHeadless(this.#space(), [{ role: 'user', text }], DEFAULT_MAX_TURNS, { connection, runOptions: { signal } }));
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `${(error as { code?: string }).code ?? 'INTERNAL'}: ${(error as Error).message}` }] };
    }
  }
}

function status(state: TaskState, message?: Message) {
  return { state, message, timestamp: new Date().toISOString() };
}

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}
