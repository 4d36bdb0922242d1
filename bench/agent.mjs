// bench/agent.mjs — what one headless agent turn costs agent-spaces, without the model's own time, and how big the
// system prompt of the example space is.
//
// Builds the repository's example capabilities (`capabilities/`, as the root config lists them, MCP servers left out)
// into a temporary folder and serves them as one space with one prompt tool, and answers
// the server's `sampling/createMessage` from an in-memory MCP client at once, so every millisecond measured is ours:
// filling the template, the compiled prompt and catalog, the sampling round trip over the MCP SDK, running the
// agent's code in the sandbox, and formatting seed 004's result. Prints the mean cost of a turn that only answers and
// of a turn that runs one small script (goal ≤ 5 ms each, code run included), and the system prompt in tokens
// (≈ characters / 4).
//
// Run after `npm run build`:   node --no-node-snapshot bench/agent.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCapabilities } from '@agent-spaces/compiler';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createCodeModeServer } from '@agent-spaces/server';

const ROUNDS = 200;
const rootDir = fileURLToPath(new URL('..', import.meta.url));
const tokens = (text) => Math.ceil(text.length / 4);
const outDir = await mkdtemp(join(tmpdir(), 'agent-spaces-bench-agent-'));
const report = await buildCapabilities({ rootDir, outDir, sources: ['capabilities/*.ts', 'capabilities/*.json'] });
if (report.totals.failed > 0) throw new Error(`the example capabilities did not build: ${JSON.stringify(report.capabilities)}`);

const server = createCodeModeServer({
  spaces: [
    {
      id: 'example',
      name: 'Example',
      tools: [{ name: 'ask_example', description: 'Ask the example space', parameters: { type: 'object', properties: { q: { type: 'string' } } }, prompt: '{q}' }],
    },
  ],
  space: { rootDir, outDir, isolation: 'in-process' },
});
const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: { sampling: { tools: {} } } });
let system = '';
let script = [];
client.setRequestHandler(CreateMessageRequestSchema, (request) => {
  system = request.params.systemPrompt ?? '';
  const next = script.shift();
  return next === 'code'
    ? { role: 'assistant', model: 'bench', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 't1', name: 'execute', input: { code: 'export default [1, 2, 3].length;' } }] }
    : { role: 'assistant', model: 'bench', content: { type: 'text', text: 'done' } };
});
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
await client.connect(clientSide);

/** Mean ms per turn over ROUNDS tool calls whose model answers follow `turns` (after warm-up calls). */
async function perTurn(turns) {
  const call = async () => {
    script = [...turns];
    const result = await client.callTool({ name: 'ask_example', arguments: { q: 'How many?' } });
    if (result.isError) throw new Error(result.content[0].text);
  };
  for (let i = 0; i < 20; i++) await call();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) await call();
  return (performance.now() - started) / (ROUNDS * turns.length);
}

const answerOnly = await perTurn(['text']);
const withCode = (await perTurn(['code', 'text'])) * 2 - answerOnly;
console.log(`agent turn, answer only (sampling round trip, prompt, result):  ${answerOnly.toFixed(2)} ms`);
console.log(`agent turn with one code run (in-process sandbox run included): ${withCode.toFixed(2)} ms   (goal ≤ 5 ms)`);
console.log(`system prompt of the example space:                              ${tokens(system).toLocaleString('en-US')} tokens (${system.length.toLocaleString('en-US')} characters)`);
await client.close();
await rm(outDir, { recursive: true, force: true });
