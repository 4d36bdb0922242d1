import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AgentSpacesError, DEFAULT_OUT_DIR, editorTsconfig } from '@agent-spaces/capabilities';
import type { CommandContext } from './context.js';
import { toJson } from '../json.js';

/** The MCP clients `init --mcp` writes a project snippet for, and where each reads it. */
const MCP_CLIENTS = {
  claude: { file: '.mcp.json', key: 'mcpServers', server: { command: 'npx', args: ['agent-spaces', 'mcp', 'serve', '--config', 'agent-spaces.config.ts'] } },
  cursor: { file: '.cursor/mcp.json', key: 'mcpServers', server: { command: 'npx', args: ['agent-spaces', 'mcp', 'serve'] } },
  vscode: { file: '.vscode/mcp.json', key: 'servers', server: { type: 'stdio', command: 'npx', args: ['agent-spaces', 'mcp', 'serve'] } },
} as const;

type McpClient = keyof typeof MCP_CLIENTS;

const CONFIG = `import { defineConfig } from '@agent-spaces/capabilities';

export default defineConfig({
  // Definitions (defineTool() .ts, .json) become typed modules: capabilities/hello.ts -> @capabilities/hello.
  capabilities: ['capabilities/*'],
  // MCP servers and OpenAPI specs become capabilities too:
  // mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
  // openapi: [{ name: 'todos', spec: 'specs/todos.yaml', baseUrl: 'https://api.example.com' }],
});
`;

const CAPABILITY = `// An example capability: its handler runs on the host, agent code calls it as @capabilities/hello.
import { defineTool } from '@agent-spaces/capabilities';

export const hello = defineTool({
  name: 'hello',
  description: 'Greets people',
  functions: {
    greet: {
      description: 'Greet someone by name',
      parameters: { name: { type: 'string', required: true, minLength: 1, description: 'Who to greet' } },
      returns: {} as { message: string },
      handler: async ({ name }) => ({ message: \`Hello, \${name}!\` }),
    },
  },
});
`;

const AGENT = `// An example agent script: \`npx agent-spaces run agents/hello.ts\` runs it in the sandbox.
import { hello } from '@capabilities/hello';

const { message } = await hello.greet({ name: 'world' });
console.log(message);

export default { message };
`;


const IGNORE = `${DEFAULT_OUT_DIR}/`;

/** Reads `--mcp`: a client to write the MCP snippet for. Throws `CONFIG_INVALID` naming the option otherwise. */
function parseMcpClient(value: unknown): McpClient | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && Object.hasOwn(MCP_CLIENTS, value)) return value as McpClient;
  throw new AgentSpacesError('CONFIG_INVALID', `--mcp must be one of ${Object.keys(MCP_CLIENTS).join(', ')}, got ${JSON.stringify(value)}`, { field: 'mcp' });
}

/**
 * `agent-spaces init`: writes a starter project into the working folder (config, an example capability and agent
 * script, the editor tsconfig, a `.gitignore` entry and, with `--mcp`, the MCP client snippet). Writes nothing when
 * any of those files exists (`WRITE_FAILED`, `data.reason: "exists"`). In a folder that already has a config,
 * `--mcp <client>` only adds that client's snippet ({@link addMcpSnippet}).
 */
export async function init(context: CommandContext): Promise<number> {
  const { output } = context;
  const client = parseMcpClient(context.values.mcp);
  const root = process.cwd();
  if (client) {
    const { CONFIG_FILE_NAMES } = await import('@agent-spaces/compiler');
    const config = CONFIG_FILE_NAMES.find((name) => existsSync(join(root, name)));
    if (config) return addMcpSnippet(context, root, client, config);
  }
  const files: Record<string, string> = {
    'agent-spaces.config.ts': CONFIG,
    'capabilities/hello.ts': CAPABILITY,
    'agents/hello.ts': AGENT,
    // The build's fragment holds the options `check` uses and every declaration agent code sees.
    'agents/tsconfig.json': editorTsconfig(join(root, 'agents'), join(root, DEFAULT_OUT_DIR)),
  };
  if (client) {
    const { file, key, server } = MCP_CLIENTS[client];
    files[file] = `${JSON.stringify({ [key]: { 'agent-spaces': server } }, null, 2)}\n`;
  }
  const existing = Object.keys(files).filter((file) => existsSync(join(root, file)));
  if (existing.length > 0) {
    throw new AgentSpacesError('WRITE_FAILED', `init writes nothing: ${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}`, {
      file: existing[0],
      files: existing,
      reason: 'exists',
    });
  }
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text, { flag: 'wx' });
  }
  const written = Object.keys(files);
  if (await addIgnoreEntry(join(root, '.gitignore'))) written.push('.gitignore');
  if (context.values.json === true) {
    output.out(toJson({ ok: true, files: written }));
    return 0;
  }
  for (const file of written) output.info(`✓ ${file}`);
  output.info(['', 'Next:', '  npx agent-spaces capabilities build', '  npx agent-spaces run agents/hello.ts'].join('\n'));
  return 0;
}

/** Adds `.agent-spaces/` to `.gitignore` (creating it) unless a line already names it; true when it wrote. */
async function addIgnoreEntry(file: string): Promise<boolean> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (text.split(/\r?\n/).some((line) => line.trim().replace(/^\/|\/$/g, '') === IGNORE.slice(0, -1))) return false;
  await appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${IGNORE}\n`);
  return true;
}

/**
 * `init --mcp <client>` in an existing project: adds the `agent-spaces` server to the client's file (creating it), the
 * file's other servers, comments and layout untouched; says so and writes nothing when the file already has one. The
 * Claude Code snippet names the project's own config file.
 */
async function addMcpSnippet(context: CommandContext, root: string, client: McpClient, config: string): Promise<number> {
  const { addClientServer } = await import('@agent-spaces/compiler');
  const { file, key, server } = MCP_CLIENTS[client];
  const entry = { ...server, args: server.args.map((arg) => (arg === 'agent-spaces.config.ts' ? config : arg)) };
  const path = join(root, file);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw new AgentSpacesError('WRITE_FAILED', `${file}: cannot read (${error.message})`, { file });
  });
  const updated = await addClientServer(text, file, key, 'agent-spaces', entry);
  if (updated !== undefined) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, updated);
  }
  const files = updated === undefined ? [] : [file];
  if (context.values.json === true) context.output.out(toJson({ ok: true, files, ...(updated === undefined ? { unchanged: [file] } : {}) }));
  else context.output.info(updated === undefined ? `· ${file} already has an "agent-spaces" server: unchanged` : `✓ ${file} (agent-spaces added)`);
  return 0;
}
