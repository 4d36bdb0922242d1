// bench/mcp-serve.mjs — how much context the code-mode MCP server costs an agent, against plain MCP tools.
//
// Starts the MCP servers installed in the workspace (everything, filesystem, memory, sequential-thinking), records
// their raw `tools/list` JSON, turns every tool into a capability function (same name, description and input
// schema) and serves them with `createCodeModeServer`. Then prints, in tokens (≈ characters / 4): the raw listing, the
// full `.d.ts` (`describe_capabilities`), the code-mode server's own `tools/list`, and typical `search_capabilities`
// answers with their share of the raw listing. Goal: a typical search answer ≤ 2 % of the raw listing.
//
// Run after `npm run build`:   node --no-node-snapshot bench/mcp-serve.mjs
// or from sources, no build:   node --no-node-snapshot --conditions=@agent-spaces/source \
//                                --import ./packages/server/test/support/register.mjs bench/mcp-serve.mjs
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildCapabilities } from '@agent-spaces/compiler';
import { createCodeModeServer } from '@agent-spaces/server';

const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const tokens = (text) => Math.ceil(text.length / 4);
const percent = (part, whole) => `${((100 * part) / whole).toFixed(2)} %`;

const QUERIES = [
  'read a text file',
  'list directory',
  'create entities in the knowledge graph',
  'search nodes',
  'add two numbers',
  'step by step thinking',
  'move or rename a file',
  'delete relations',
];

const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-bench-'));
try {
  const servers = [
    { id: 'everything', name: 'everything', command: bin('mcp-server-everything'), args: ['stdio'] },
    { id: 'filesystem', name: 'filesystem', command: bin('mcp-server-filesystem'), args: [dir] },
    { id: 'memory', name: 'memory', command: bin('mcp-server-memory'), args: [], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
    { id: 'thinking', name: 'sequentialThinking', command: bin('mcp-server-sequential-thinking'), args: [] },
  ];

  let raw = '';
  let toolCount = 0;
  await mkdir(join(dir, 'capabilities'));
  for (const server of servers) {
    const client = new Client({ name: 'agent-spaces-bench', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...server.env }, stderr: 'ignore' }),
    );
    const listing = await client.listTools();
    await client.close();
    raw += JSON.stringify(listing);
    toolCount += listing.tools.length;
    const definition = {
      name: server.name,
      description: `Tools of the ${server.id} MCP server`,
      functions: listing.tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema })),
      executor: { kind: 'runtime' },
    };
    await writeFile(join(dir, 'capabilities', `${server.id}.json`), JSON.stringify(definition));
  }

  const report = await buildCapabilities({ rootDir: dir, sources: ['capabilities/*.json'] });
  const failed = report.capabilities.filter((c) => c.status === 'failed');
  if (failed.length > 0) throw new Error(`build failed: ${JSON.stringify(failed.map((c) => c.diagnostics))}`);

  const server = createCodeModeServer({ spaces: [{ id: 'bench', name: 'bench' }], space: { rootDir: dir } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent-spaces-bench', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const text = async (name, args) => (await client.callTool({ name, arguments: args })).content[0].text;

  const rawTokens = tokens(raw);
  const dtsTokens = tokens(await text('describe_capabilities', {}));
  const ownTokens = tokens(JSON.stringify(await client.listTools()));
  console.log(`MCP servers: ${servers.length}, tools: ${toolCount}`);
  console.log(`raw tools/list JSON of those servers      ${String(rawTokens).padStart(7)} tokens  100 %`);
  console.log(`full .d.ts (describe_capabilities)        ${String(dtsTokens).padStart(7)} tokens  ${percent(dtsTokens, rawTokens)}`);
  console.log(`code-mode server's own tools/list          ${String(ownTokens).padStart(7)} tokens  ${percent(ownTokens, rawTokens)}`);
  console.log('');
  console.log('search_capabilities (detail: signatures, limit 5)');
  const sizes = [];
  for (const query of QUERIES) {
    const answer = tokens(await text('search_capabilities', { query }));
    sizes.push(answer);
    console.log(`  ${JSON.stringify(query).padEnd(42)} ${String(answer).padStart(5)} tokens  ${percent(answer, rawTokens)}`);
  }
  for (const detail of ['names', 'full']) {
    const answer = tokens(await text('search_capabilities', { query: QUERIES[0], detail }));
    console.log(`  ${`${JSON.stringify(QUERIES[0])} (detail: ${detail})`.padEnd(42)} ${String(answer).padStart(5)} tokens  ${percent(answer, rawTokens)}`);
  }
  const median = [...sizes].sort((a, b) => a - b)[Math.floor(sizes.length / 2)];
  const ok = median <= rawTokens * 0.02;
  console.log('');
  console.log(`typical (median) search answer: ${median} tokens = ${percent(median, rawTokens)} of the raw listing — goal ≤ 2 %: ${ok ? 'met' : 'NOT met'}`);
  await client.close();
  process.exitCode = ok ? 0 : 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
