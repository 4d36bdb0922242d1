import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverAll, hashTools, type McpDiscovery, type McpTool } from '@agent-spaces/mcp';
import { emitDeclarations } from '../src/emit/declarations.js';
import { MCP_DECLARATIONS, mcpToCapability, readMcpServer } from '../src/sources/mcp.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = resolve(import.meta.dirname, '../../..');
const script = (pkg: string) => join(repo, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');

/** A discovery result made of inline tools, as a server would list them. */
function discovery(tools: McpTool[], extra: Partial<McpDiscovery> = {}): McpDiscovery {
  return { server: 'demo', serverInfo: { name: 'demo-server', version: '1.2.3' }, tools, toolsHash: hashTools(tools), ...extra };
}

const libFiles = new Map<string, ts.SourceFile>();

/** Every diagnostic of a strict program made of `files` (in memory; `.d.ts` files checked too), as `file: message`. */
function strictErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ['lib.es2022.d.ts'],
    types: [],
    skipDefaultLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => files[file] ?? read(file);
  host.fileExists = (file) => file in files || ts.sys.fileExists(file);
  host.getSourceFile = (file, language) => {
    if (file in files) return ts.createSourceFile(file, files[file]!, language);
    if (!libFiles.has(file)) {
      const text = read(file);
      if (text === undefined) return undefined;
      libFiles.set(file, ts.createSourceFile(file, text, language));
    }
    return libFiles.get(file);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the four official servers compile to declarations that pass tsc --strict', () => {
  let project: Project;
  let found: McpDiscovery[];
  beforeAll(async () => {
    project = await makeProject();
    const outcomes = await discoverAll({
      everything: { command: process.execPath, args: [script('server-everything'), 'stdio'] },
      filesystem: { command: process.execPath, args: [script('server-filesystem'), project.dir] },
      memory: { command: process.execPath, args: [script('server-memory')], env: { MEMORY_FILE_PATH: project.path('m.jsonl') } },
      'sequential-thinking': { command: process.execPath, args: [script('server-sequential-thinking')] },
    });
    found = outcomes.map((o) => {
      if (!o.ok) throw o.error;
      return o.discovery;
    });
  });

  it('converts every tool, resource and prompt without error diagnostics', () => {
    for (const d of found) {
      const { capability, diagnostics } = mcpToCapability(d);
      expect(diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
      const tools = d.tools.map((t) => t.name);
      expect(capability.functions.filter((f) => !f.sourceName.includes('/')).map((f) => f.sourceName)).toEqual(tools);
    }
    const ids = found.map((d) => mcpToCapability(d).capability).map((c) => [c.id, c.exportName]);
    expect(ids).toEqual([
      ['mcp-everything', 'everything'],
      ['mcp-filesystem', 'filesystem'],
      ['mcp-memory', 'memory'],
      ['mcp-sequential-thinking', 'sequentialThinking'],
    ]);
  });

  it('emits .d.ts files that compile with an agent script using them', () => {
    const files: Record<string, string> = {};
    for (const d of found) {
      const { capability } = mcpToCapability(d);
      const { text, diagnostics } = emitDeclarations(capability);
      expect(diagnostics).toEqual([]);
      files[`/caps/${capability.id}.d.ts`] = text;
    }
    files['/agent.ts'] = `
      import { everything, getSum } from '@capabilities/mcp-everything';
      import { filesystem } from '@capabilities/mcp-filesystem';
      import { memory } from '@capabilities/mcp-memory';
      import { sequentialThinking } from '@capabilities/mcp-sequential-thinking';
      export async function main(): Promise<string> {
        const sum = await getSum({ a: 1, b: 2 });
        const weather = await everything.getStructuredContent({ location: 'Chicago' });
        const celsius: number = weather.temperature;
        const file = await filesystem.readTextFile({ path: '/tmp/x', head: 3 });
        await memory.createEntities({ entities: [{ name: 'Ada', entityType: 'person', observations: [] }] });
        const step = await sequentialThinking.sequentialthinking({ thought: 't', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 });
        const docs = await everything.listResources();
        const contents = await everything.readResource({ uri: docs[0]!.uri });
        const messages = await everything.promptArgsPrompt({ city: 'Paris' });
        return sum.text + celsius + file.content + step.thoughtNumber + (contents[0]?.text ?? '') + messages[0]!.role;
      }`;
    expect(strictErrors(files)).toEqual([]);
    files['/agent.ts'] = `import { everything } from '@capabilities/mcp-everything';\nvoid everything.getSum({ a: 'one', b: 2 });`;
    expect(strictErrors(files).join('\n')).toMatch(/agent\.ts: Type 'string' is not assignable to type 'number'/);
  });
});

describe('tools become functions', () => {
  it('camelCases names, keeps the real name as sourceName and the schemas as given', () => {
    const inputSchema = { type: 'object' as const, properties: { a: { type: 'number' } }, required: ['a'], $schema: 'http://json-schema.org/draft-07/schema#' };
    const { capability } = mcpToCapability(discovery([{ name: 'get-sum', description: 'Adds', inputSchema }]));
    expect(capability.functions).toEqual([
      {
        name: 'getSum',
        sourceName: 'get-sum',
        description: 'Adds\n\nMCP tool `get-sum`.',
        parameters: inputSchema,
        returnsType: 'McpToolResult',
        pointer: '/tools/0',
      },
    ]);
    expect(capability).toMatchObject({
      id: 'mcp-demo',
      exportName: 'demo',
      sourceName: 'demo',
      version: '1.2.3',
      source: { kind: 'mcp', file: 'mcp:demo' },
      executor: { kind: 'mcp', server: 'demo', toolsHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      declarations: MCP_DECLARATIONS,
    });
  });

  it('keeps $defs/$ref (2020-12), anyOf/oneOf, type arrays and tools without properties, and they compile', () => {
    const tools: McpTool[] = [
      { name: 'no_params', inputSchema: { type: 'object' } },
      {
        name: 'route',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          title: 'Route Params',
          $defs: { point: { title: 'Point', type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
          properties: {
            from: { $ref: '#/$defs/point' },
            id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
            limit: { type: ['integer', 'null'] },
            mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
            title: { type: 'string', title: 'A property named title' },
            _meta: { type: 'object' },
          },
          required: ['from'],
        },
        outputSchema: { type: 'object', properties: { km: { type: 'number' } }, required: ['km'] },
        _meta: { 'example.com/x': 1 },
        execution: { taskSupport: 'forbidden' },
      },
    ];
    const { capability, diagnostics } = mcpToCapability(discovery(tools));
    expect(diagnostics).toEqual([]);
    const route = capability.functions[1]!;
    expect(route.parameters.$defs).toEqual(tools[1]!.inputSchema.$defs);
    expect(route.returns).toEqual(tools[1]!.outputSchema);
    expect(route.returnsType).toBeUndefined();
    const { text } = emitDeclarations(capability);
    const agent = `import { demo } from '@capabilities/mcp-demo';
      export async function main() {
        const r = await demo.route({ from: { x: 1 }, id: 7, limit: null, mode: 'b', title: 't', _meta: {} });
        const km: number = r.km;
        const none = await demo.noParams();
        return km + none.text;
      }`;
    expect(strictErrors({ '/demo.d.ts': text, '/agent.ts': agent })).toEqual([]);
  });

  it('puts annotations into the description and asks approval for destructive tools', () => {
    const tool: McpTool = {
      name: 'delete_file',
      title: 'Delete File',
      description: 'Deletes a file',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    };
    const safe: McpTool = { name: 'peek', inputSchema: { type: 'object' }, annotations: { title: 'Peek', readOnlyHint: true, openWorldHint: true } };
    const [del, peek] = mcpToCapability(discovery([tool, safe])).capability.functions;
    expect(del).toMatchObject({
      requiresApproval: true,
      description: 'Deletes a file\n\nMCP tool `delete_file` ("Delete File"): destructive, idempotent, closed-world.',
    });
    expect(peek?.requiresApproval).toBeUndefined();
    expect(peek?.description).toBe('MCP tool `peek` ("Peek"): read-only, open-world.');
  });

  it('gives colliding names a suffix with a warning, and leaves out reserved tool names with an error', () => {
    const tools: McpTool[] = [
      { name: 'get-sum', inputSchema: { type: 'object' } },
      { name: 'get_sum', inputSchema: { type: 'object' } },
      { name: 'delete', inputSchema: { type: 'object' } },
      { name: 'demo', inputSchema: { type: 'object' } },
      { name: 'resources/list', inputSchema: { type: 'object' } },
    ];
    const { capability, diagnostics } = mcpToCapability(discovery(tools));
    expect(capability.functions.map((f) => [f.name, f.sourceName])).toEqual([
      ['getSum', 'get-sum'],
      ['getSum2', 'get_sum'],
      ['delete_', 'delete'],
      ['demo2', 'demo'],
    ]);
    expect(diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
      ['NAME_COLLISION', 'warning', '/tools/1'],
      ['NAME_COLLISION', 'warning', '/tools/3'],
      ['NAME_COLLISION', 'error', '/tools/4/name'],
    ]);
  });

  it('builds a tool that must or may run as a task, and records which in its task', () => {
    const tools: McpTool[] = [
      { name: 'research', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
      { name: 'count', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
      { name: 'peek', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
    ];
    const { capability, diagnostics } = mcpToCapability(discovery(tools));
    expect(diagnostics).toEqual([]);
    expect(capability.functions.map((f) => [f.name, f.task])).toEqual([
      ['research', 'required'],
      ['count', 'optional'],
      ['peek', undefined],
    ]);
  });

  it('reports an input schema that is not an object schema', () => {
    const tool = { name: 'odd', inputSchema: { type: 'string' } } as unknown as McpTool;
    const { capability, diagnostics } = mcpToCapability(discovery([tool]), { file: '.mcp.json' });
    expect(capability.functions).toEqual([]);
    expect(diagnostics).toMatchObject([{ code: 'INVALID_DEFINITION', severity: 'error', file: '.mcp.json', pointer: '/tools/0/inputSchema' }]);
  });
});

describe('resources and prompts become functions', () => {
  it('adds listResources, readResource and one prompt function per prompt', () => {
    const { capability } = mcpToCapability(
      discovery([], {
        server: 'my_server.v2',
        resources: [{ uri: 'demo://a', name: 'a' }],
        prompts: [{ name: 'code-review', description: 'Review code', arguments: [{ name: 'code', required: true }, { name: 'style' }] }],
      }),
    );
    expect(capability.id).toBe('mcp-my-server-v2');
    expect(capability.exportName).toBe('myServerV2');
    expect(capability.functions.map((f) => [f.name, f.sourceName, f.returnsType])).toEqual([
      ['listResources', 'resources/list', 'McpResource[]'],
      ['readResource', 'resources/read', 'McpResourceContents[]'],
      ['promptCodeReview', 'prompts/get/code-review', 'McpPromptMessage[]'],
    ]);
    expect(capability.functions[2]?.parameters).toEqual({
      type: 'object',
      properties: { code: { type: 'string' }, style: { type: 'string' } },
      required: ['code'],
      additionalProperties: false,
    });
  });
});

describe('reading one entry of mcpServers', () => {
  const context = { rootDir: import.meta.dirname, outDir: join(tmpdir(), '.agent-spaces'), relative: (file: string) => file };

  it('labels the capability and its diagnostics mcpServers.<server>', async () => {
    const result = await readMcpServer('thinking', { command: process.execPath, args: [script('server-sequential-thinking')] }, context);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.capabilities.map((c) => [c.id, c.source, c.executor.kind])).toEqual([['mcp-thinking', { kind: 'mcp', file: 'mcpServers.thinking' }, 'mcp']]);
  });

  it('fails a server that cannot start with MCP_UNAVAILABLE naming it and the reason, keeping the id', async () => {
    const result = await readMcpServer('gone', { command: join(tmpdir(), 'no-such-mcp-server') }, context);
    expect(result.capabilities.map((c) => c.id)).toEqual(['mcp-gone']);
    expect(result.diagnostics).toMatchObject([{ code: 'MCP_UNAVAILABLE', severity: 'error', file: 'mcpServers.gone' }]);
    expect(result.diagnostics[0]!.message).toMatch(/"gone".*\(spawn_failed\)$/s);
  });

  it('fails a server whose ${VAR} is not set with CONFIG_INVALID naming the variable', async () => {
    const result = await readMcpServer('secret', { command: 'node', env: { TOKEN: '${AGENT_SPACES_TEST_UNSET_VAR}' } }, context);
    expect(result.diagnostics).toMatchObject([{ code: 'CONFIG_INVALID', file: 'mcpServers.secret' }]);
    expect(result.diagnostics[0]!.message).toContain('AGENT_SPACES_TEST_UNSET_VAR');
  });
});
