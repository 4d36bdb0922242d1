/**
 * MCP source: one discovered MCP server → one capability `@capabilities/mcp-<server>`. Every tool becomes a
 * function (its input schema the parameters, its output schema the result, its `execution.taskSupport` the function's
 * `task`); resources and prompts become `listResources()`, `readResource({ uri })` and `prompt<Name>(args)`. Calls go
 * to the `mcp` executor.
 */
import { readObserved } from '@agent-spaces/bridge/output';
import {
  isAgentSpacesError,
  type CapabilityIR,
  type Diagnostic,
  type FunctionIR,
  type McpServerConfig,
  type McpTaskSupport,
  type ObjectSchema,
  type ObservedFile,
} from '@agent-spaces/capabilities';
import {
  discover,
  MCP_LIST_RESOURCES,
  MCP_READ_RESOURCE,
  parseMcpSourceName,
  promptSourceName,
  type McpDiscovery,
  type McpPrompt,
  type McpTool,
} from '@agent-spaces/mcp';
import { NameAllocator, identifier, kebabCase, typeName } from '../ir/names.js';
import { schemaDeclarations } from '../emit/schema-declarations.js';
import { checkCapabilityNames, normalizeParameters, normalizeReturns } from '../ir/normalize.js';
import type { SourceContext, SourceResult, SourceWaiting } from './types.js';

/** The IR of one MCP server and the problems found converting it. */
export interface McpSourceResult {
  capability: CapabilityIR;
  diagnostics: Diagnostic[];
}

/** Options of {@link mcpToCapability}. */
export interface McpSourceOptions {
  /** The config file that declares the server, relative to the config folder (default `mcp:<server>`). */
  file?: string;
  /**
   * What the results of its tools looked like in earlier runs, by tool name (`readObserved`): a tool without an
   * output schema is typed `McpDataResult<T>`, `T` inferred from them.
   */
  observed?: ObservedFile['tools'];
}

/**
 * Types every MCP capability's declarations hold: the result of a tool without an output schema, and what the
 * resource and prompt functions resolve to.
 */
export const MCP_DECLARATIONS = `/** One block of content returned by an MCP tool or prompt. */
export type McpContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: 'resource'; resource: McpResourceContents };

/** What a tool without an output schema resolves to. */
export interface McpToolResult<T = unknown> {
  /** The content blocks the tool returned (text, images, audio, resource links, embedded resources). */
  content: McpContentBlock[];
  /** The text blocks of \`content\` joined with newlines ('' when there are none). */
  text: string;
  /** Structured result, when the server sent one without declaring an output schema. */
  structuredContent?: Record<string, unknown>;
  /**
   * The result's data: \`structuredContent\`, else \`text\` parsed when it is a JSON object or array, else the array of
   * the text blocks parsed when there are several and each is one; absent otherwise.
   */
  data?: T;
}

/** A tool result whose data has the type inferred from the results seen so far (a later result may differ). */
export interface McpDataResult<T> extends McpToolResult<T> {
  data: T;
}

/** The contents of a resource: \`text\`, or base64 \`blob\` for binary data. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A resource the server offers. */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** One message of a prompt. */
export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: McpContentBlock;
}
`;

const NO_PARAMETERS: ObjectSchema = { type: 'object', properties: {}, additionalProperties: false };
const EXAMPLE_URIS = 5;

/**
 * Reads one entry of `mcpServers` (labelled `mcpServers.<server>`): discovers the server (placeholders expanded
 * from the host environment and `<rootDir>/.env`, never into the result) and converts it. A server that cannot be
 * discovered gives an `MCP_UNAVAILABLE` error naming the server and the reason (`CONFIG_INVALID` for a `${VAR}`
 * that is not set), on an empty capability that only carries the id, so the build reports `mcp-<server>` as failed
 * and keeps its last good output.
 */
export async function readMcpServer(server: string, config: McpServerConfig, context: SourceContext): Promise<SourceResult> {
  const file = `mcpServers.${server}`;
  try {
    const discovery = await whileWaiting(discover(server, config, { projectRoot: context.rootDir }), server, context.onWaiting);
    const observed = readObserved(context.outDir, `mcp-${kebabCase(server)}`).tools;
    const { capability, diagnostics } = mcpToCapability(discovery, { file, observed });
    return { capabilities: [capability], diagnostics, inputs: [], hostModules: {} };
  } catch (error) {
    const reason = isAgentSpacesError(error) && typeof error.data?.reason === 'string' ? ` (${error.data.reason})` : '';
    const message = `${error instanceof Error ? error.message : String(error)}${reason}`;
    const capability: CapabilityIR = {
      id: `mcp-${kebabCase(server)}`,
      exportName: identifier(server),
      sourceName: server,
      description: '',
      version: '0.0.0',
      source: { kind: 'mcp', file },
      functions: [],
      config: {},
      executor: { kind: 'mcp', server },
    };
    const code = isAgentSpacesError(error) && error.code === 'CONFIG_INVALID' ? 'CONFIG_INVALID' : 'MCP_UNAVAILABLE';
    return { capabilities: [capability], diagnostics: [{ code, severity: 'error', file, message }], inputs: [], hostModules: {} };
  }
}

/** How often {@link SourceContext.onWaiting} hears that an MCP server has not answered discovery yet. */
const MCP_WAITING_INTERVAL_MS = 3_000;

/** `work`, telling `onWaiting` every {@link MCP_WAITING_INTERVAL_MS} how long `server` has kept it waiting. */
async function whileWaiting<T>(work: Promise<T>, server: string, onWaiting: ((event: SourceWaiting) => void) | undefined): Promise<T> {
  if (!onWaiting) return work;
  const started = Date.now();
  const timer = setInterval(() => onWaiting({ kind: 'mcp', name: server, elapsedMs: Date.now() - started }), MCP_WAITING_INTERVAL_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/**
 * Converts what discovery found on one server into a capability: id `mcp-<server>` (kebab-case), export name the
 * camelCase server name, one function per tool (camelCase name, `sourceName` the tool's real name), plus the
 * resource and prompt functions when the server offers them. Problems are returned as diagnostics.
 */
export function mcpToCapability(discovery: McpDiscovery, options: McpSourceOptions = {}): McpSourceResult {
  const { server } = discovery;
  const file = options.file ?? `mcp:${server}`;
  const diagnostics: Diagnostic[] = [];
  const exportName = identifier(server);
  const names = new NameAllocator();
  names.reserve(exportName);
  const allocate = (wanted: string, sourceName: string, pointer: string): string => {
    const name = names.allocate(wanted);
    if (name !== wanted) {
      diagnostics.push({
        code: 'NAME_COLLISION',
        severity: 'warning',
        file,
        pointer,
        message: `${JSON.stringify(sourceName)} would become ${wanted}, which is taken: it is ${name}`,
      });
    }
    return name;
  };

  const functions: FunctionIR[] = [];
  const inferred: string[] = [];
  discovery.tools.forEach((tool, index) => {
    const pointer = `/tools/${index}`;
    const fn = toolFunction(tool, pointer, file, diagnostics);
    if (!fn) return;
    const name = allocate(identifier(tool.name), tool.name, pointer);
    const seen = fn.returnsType === 'McpToolResult' && Object.hasOwn(options.observed ?? {}, tool.name) ? options.observed![tool.name]! : undefined;
    // Only results with data tell a type; results without it make `data` optional.
    if (!seen || seen.results === 0) return void functions.push({ ...fn, name });
    // Prefixed by the function's name, so the types of two tools never clash.
    const data = schemaDeclarations(seen.schema, 'Data', typeName(name), file);
    inferred.push(data.text);
    diagnostics.push(...data.diagnostics);
    const plural = (n: number) => `${n} result${n === 1 ? '' : 's'}`;
    const absent = seen.withoutData ?? 0;
    const note =
      `Result \`data\` typed from ${plural(seen.results)} seen (inferred, not declared by the server: a result may differ).` +
      (absent > 0 ? ` ${plural(absent)} had no JSON data: \`data\` may be absent.` : '');
    functions.push({ ...fn, name, description: `${fn.description}\n\n${note}`, returnsType: `${absent > 0 ? 'McpToolResult' : 'McpDataResult'}<${data.type}>` });
  });
  if (discovery.resources) functions.push(...resourceFunctions(discovery.resources, server, allocate));
  discovery.prompts?.forEach((prompt, index) => {
    const pointer = `/prompts/${index}`;
    const name = allocate(identifier(`prompt_${prompt.name}`), promptSourceName(prompt.name), pointer);
    functions.push({ ...promptFunction(prompt, server), name, pointer });
  });

  const title = discovery.serverInfo.title ?? discovery.serverInfo.name;
  const capability: CapabilityIR = {
    id: `mcp-${kebabCase(server)}`,
    exportName,
    sourceName: server,
    description: [`MCP server "${server}" (${title} ${discovery.serverInfo.version}).`, discovery.instructions ?? ''].join('\n\n').trim(),
    version: discovery.serverInfo.version,
    source: { kind: 'mcp', file },
    functions,
    config: {},
    executor: { kind: 'mcp', server, toolsHash: discovery.toolsHash },
    declarations: [MCP_DECLARATIONS, ...inferred].join('\n\n'),
  };
  diagnostics.push(...checkCapabilityNames(capability));
  return { capability, diagnostics };
}

/**
 * `listResources()` and `readResource({ uri })` of a server that offers `resources` (the first few URIs are `uri`'s
 * examples); `allocate` names them.
 */
function resourceFunctions(
  resources: NonNullable<McpDiscovery['resources']>,
  server: string,
  allocate: (wanted: string, sourceName: string, pointer: string) => string,
): FunctionIR[] {
  const examples = resources.slice(0, EXAMPLE_URIS).map((r) => r.uri);
  return [
    {
      name: allocate('listResources', MCP_LIST_RESOURCES, '/resources'),
      sourceName: MCP_LIST_RESOURCES,
      description: `Lists the resources of MCP server "${server}" (all pages).`,
      parameters: NO_PARAMETERS,
      returnsType: 'McpResource[]',
      pointer: '/resources',
    },
    {
      name: allocate('readResource', MCP_READ_RESOURCE, '/resources'),
      sourceName: MCP_READ_RESOURCE,
      description: `Reads one resource of MCP server "${server}"; resolves to its contents.`,
      parameters: {
        type: 'object',
        properties: {
          uri: { type: 'string', description: 'URI of the resource, as listResources() gives it', ...(examples.length ? { examples } : {}) },
        },
        required: ['uri'],
        additionalProperties: false,
      },
      returnsType: 'McpResourceContents[]',
      pointer: '/resources',
    },
  ];
}

function toolFunction(tool: McpTool, pointer: string, file: string, diagnostics: Diagnostic[]): Omit<FunctionIR, 'name'> | undefined {
  if (parseMcpSourceName(tool.name).kind !== 'tool') {
    diagnostics.push({
      code: 'NAME_COLLISION',
      severity: 'error',
      file,
      pointer: `${pointer}/name`,
      message: `tool name ${JSON.stringify(tool.name)} is reserved for the resource and prompt functions; the tool is left out`,
    });
    return undefined;
  }
  const parameters = normalizeParameters(tool.inputSchema);
  if (!parameters.ok) {
    diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file, pointer: `${pointer}/inputSchema`, message: `inputSchema ${parameters.mustBe}` });
    return undefined;
  }
  const returns = normalizeReturns(tool.outputSchema);
  const destructive = tool.annotations?.destructiveHint === true;
  const task = taskSupport(tool);
  return {
    sourceName: tool.name,
    description: toolDescription(tool),
    parameters: parameters.schema,
    ...(returns ? { returns } : { returnsType: 'McpToolResult' }),
    ...(destructive ? { requiresApproval: true } : {}),
    ...(task !== undefined ? { task } : {}),
    pointer,
  };
}

/** How the tool may run as an MCP task: `required` or `optional`, else undefined (`forbidden`, the default). */
function taskSupport(tool: McpTool): McpTaskSupport | undefined {
  const support = tool.execution?.taskSupport;
  return support === 'required' || support === 'optional' ? support : undefined;
}

/** The tool's description, then a line naming the MCP tool, its title and what its annotations promise. */
function toolDescription(tool: McpTool): string {
  const hints = tool.annotations ?? {};
  const traits = [
    hints.readOnlyHint === true ? 'read-only' : undefined,
    hints.destructiveHint === true ? 'destructive' : hints.destructiveHint === false && hints.readOnlyHint !== true ? 'not destructive' : undefined,
    hints.idempotentHint === true ? 'idempotent' : undefined,
    hints.openWorldHint === true ? 'open-world' : hints.openWorldHint === false ? 'closed-world' : undefined,
  ].filter((trait): trait is string => trait !== undefined);
  const title = tool.title ?? hints.title;
  const about = `MCP tool \`${tool.name}\`${title ? ` ("${title}")` : ''}${traits.length ? `: ${traits.join(', ')}` : ''}.`;
  return [tool.description?.trim(), about].filter(Boolean).join('\n\n');
}

function promptFunction(prompt: McpPrompt, server: string): Omit<FunctionIR, 'name'> {
  const args = prompt.arguments ?? [];
  const properties = Object.fromEntries(
    args.map((arg) => [arg.name, { type: 'string' as const, ...(arg.description ? { description: arg.description } : {}) }]),
  );
  const required = args.filter((arg) => arg.required === true).map((arg) => arg.name);
  const title = prompt.title ? ` ("${prompt.title}")` : '';
  return {
    sourceName: promptSourceName(prompt.name),
    description: [prompt.description?.trim(), `MCP prompt \`${prompt.name}\`${title} of "${server}"; resolves to its messages.`]
      .filter(Boolean)
      .join('\n\n'),
    parameters: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    returnsType: 'McpPromptMessage[]',
  };
}
