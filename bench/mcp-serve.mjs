// bench/mcp-serve.mjs — how much context the code-mode MCP server costs an agent, against plain MCP tools.
//
// Starts the MCP servers installed in the workspace (everything, filesystem, memory, sequential-thinking), records
// their raw `tools/list` JSON, turns every tool into a capability function (same name, description and input
// schema) and serves them with `createCodeModeServer`. Then prints, in tokens (≈ characters / 4): the raw listing, the
// full `.d.ts` (`describe_capabilities`), the code-mode server's own `tools/list`, and typical `search_capabilities`
// answers with their share of the raw listing. Goal: a typical search answer ≤ 2 % of the raw listing.
// Then the search hit rate: for each of a set of realistic queries (misspelt words, other word forms, parameter names),
// whether the function an agent needs is among the first 3 answers. Goal: ≥ 90 %.
//
// Run after `npm run build`:   node --no-node-snapshot bench/mcp-serve.mjs
// or from sources, no build:   node --no-node-snapshot --conditions=@agent-spaces/source \
//                                --import ./packages/server/test/support/register.mjs bench/mcp-serve.mjs
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
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

/** Realistic queries and the function an agent needs for each (misspelt words, other word forms, parameter names). */
const HITS = [
  ['read a text file', 'filesystem.readTextFile'],
  ['show what is in a folder', 'filesystem.listDirectory'],
  ['list files in directory with their sizes', 'filesystem.listDirectoryWithSizes'],
  ['rename a file', 'filesystem.moveFile'],
  ['move file from source to destination', 'filesystem.moveFile'],
  ['edit a file replacing old text', 'filesystem.editFile'],
  ['write content to a file', 'filesystem.writeFile'],
  ['make a new directory', 'filesystem.createDirectory'],
  ['file size and modification time', 'filesystem.getFileInfo'],
  ['find files matching a pattern', 'filesystem.searchFiles'],
  ['read several files at once', 'filesystem.readMultipleFiles'],
  ['which directories am I allowed to access', 'filesystem.listAllowedDirectories'],
  ['read an image file', 'filesystem.readMediaFile'],
  ['recursive tree of a folder', 'filesystem.directoryTree'],
  ['remember a fact about a person', 'memory.addObservations'],
  ['create entities in the knowledge graph', 'memory.createEntities'],
  ['relate two entities', 'memory.createRelations'],
  ['delete relations', 'memory.deleteRelations'],
  ['forget an entity', 'memory.deleteEntities'],
  ['search nodes', 'memory.searchNodes'],
  ['whole knowledge graph', 'memory.readGraph'],
  ['open nodes by name', 'memory.openNodes'],
  ['add two numbers', 'everything.getSum'],
  ['sum of a and b', 'everything.getSum'],
  ['echo a message back', 'everything.echo'],
  ['environment variables', 'everything.getEnv'],
  ['long running operation with progress', 'everything.triggerLongRunningOperation'],
  ['weather for a location', 'everything.getStructuredContent'],
  ['compress a file with gzip', 'everything.gzipFileAsResource'],
  ['step by step thinking', 'thinking.sequentialthinking'],
  ['revise an earlier thought', 'thinking.sequentialthinking'],
  // misspelt
  ['raed a txt file', 'filesystem.readTextFile'],
  ['lsit directory', 'filesystem.listDirectory'],
  ['create entites', 'memory.createEntities'],
  ['delete observatons', 'memory.deleteObservations'],
  ['serch files', 'filesystem.searchFiles'],
  // other word forms
  ['creating relations between entities', 'memory.createRelations'],
  ['moving files', 'filesystem.moveFile'],
  ['observations added to entities', 'memory.addObservations'],
  ['deleted entity names', 'memory.deleteEntities'],
];

/**
 * Queries in other words than the tools' own (synonyms an agent uses), written after the search was tuned on HITS and
 * before its synonym list, which was written with them in view. Reported apart.
 */
const FRESH = [
  ['delete a person from the graph', 'memory.deleteEntities'],
  ['store a note about someone', 'memory.addObservations'],
  ['connect two people', 'memory.createRelations'],
  ['list folder contents', 'filesystem.listDirectory'],
  ['create a folder', 'filesystem.createDirectory'],
  ['look up entities by keyword', 'memory.searchNodes'],
  ['save text to a file', 'filesystem.writeFile'],
  ['remove observations', 'memory.deleteObservations'],
  ['print a message', 'everything.echo'],
  ['calculate the total of two numbers', 'everything.getSum'],
  ['view an image', 'filesystem.readMediaFile'],
  ['show the directory structure', 'filesystem.directoryTree'],
  ['get file metadata', 'filesystem.getFileInfo'],
  ['rename a folder', 'filesystem.moveFile'],
];

/** Queries written after the synonym list and never tuned on: the figure least fitted to this bench. */
const UNSEEN = [
  ['get details about a file', 'filesystem.getFileInfo'],
  ['list everything in the knowledge graph', 'memory.readGraph'],
  ['add a link between two entities', 'memory.createRelations'],
  ['remove a connection between entities', 'memory.deleteRelations'],
  ['modify a file', 'filesystem.editFile'],
  ['new folder', 'filesystem.createDirectory'],
  ['look for files by name', 'filesystem.searchFiles'],
  ['read many files', 'filesystem.readMultipleFiles'],
  ['environment settings', 'everything.getEnv'],
  ['think through a problem', 'thinking.sequentialthinking'],
  ['record a new person', 'memory.createEntities'],
  ['show allowed folders', 'filesystem.listAllowedDirectories'],
];

const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-bench-'));
try {
  const servers = [
    { id: 'everything', name: 'everything', command: bin('mcp-server-everything'), args: ['stdio'] },
    { id: 'filesystem', name: 'filesystem', command: bin('mcp-server-filesystem'), args: [dir] },
    { id: 'memory', name: 'memory', command: bin('mcp-server-memory'), args: [], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
    { id: 'thinking', name: 'thinking', command: bin('mcp-server-sequential-thinking'), args: [] },
  ];

  let raw = '';
  let toolCount = 0;
  const mcpServers = {};
  for (const server of servers) {
    const client = new Client({ name: 'agent-spaces-bench', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...server.env }, stderr: 'ignore' }),
    );
    const listing = await client.listTools();
    await client.close();
    raw += JSON.stringify(listing);
    toolCount += listing.tools.length;
    mcpServers[server.name] = { command: server.command, args: server.args, ...(server.env ? { env: server.env } : {}) };
  }
  // Built as an agent-spaces project would be: the servers' own tools, instructions, resources and prompts.
  await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], mcpServers }));
  const { config, rootDir } = await loadConfig({ cwd: dir });
  const report = await buildCapabilities({ rootDir, sources: config.capabilities, configSources: configSources(config), outDir: config.outDir });
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
  const instructions = tokens(client.getInstructions() ?? '');
  console.log(`server instructions                       ${String(instructions).padStart(7)} tokens  ${percent(instructions, rawTokens)}`);
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
  console.log('');
  /** How many of `queries` find their function in the top 3, and the misses. */
  const hitRate = async (queries) => {
    let found = 0;
    const misses = [];
    for (const [query, want] of queries) {
      const answer = await text('search_capabilities', { query, detail: 'names', limit: 3 });
      if (answer.split('\n').includes(want)) found++;
      else misses.push(`  miss: ${JSON.stringify(query)} wants ${want}, got ${answer.split('\n').filter((l) => !l.startsWith('//')).join(', ') || 'nothing'}`);
    }
    return { found, rate: found / queries.length, misses };
  };
  const hits = await hitRate(HITS);
  const rate = hits.rate;
  console.log(`search hit rate (wanted function in the top 3): ${hits.found}/${HITS.length} = ${(100 * rate).toFixed(0)} % — goal ≥ 90 %: ${rate >= 0.9 ? 'met' : 'NOT met'}`);
  for (const miss of hits.misses) console.log(miss);
  const fresh = await hitRate(FRESH);
  console.log(`fresh queries in other words (top 3): ${fresh.found}/${FRESH.length} = ${(100 * fresh.rate).toFixed(0)} %`);
  for (const miss of fresh.misses) console.log(miss);
  const unseen = await hitRate(UNSEEN);
  console.log(`unseen queries (top 3): ${unseen.found}/${UNSEEN.length} = ${(100 * unseen.rate).toFixed(0)} %`);
  for (const miss of unseen.misses) console.log(miss);
  await client.close();
  process.exitCode = ok && rate >= 0.9 ? 0 : 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
