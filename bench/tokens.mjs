// bench/tokens.mjs — what the model reads and writes for the same tasks in code mode and with direct tool calls.
//
// Replays the task suite of bench/tokens/tasks.mjs (docs/tokens.md) through real servers: code mode against a spawned
// `agent-spaces mcp serve --stdio` (its instructions and tools/list, the search_capabilities calls an agent makes, then
// `execute`); direct mode against the MCP servers themselves (@modelcontextprotocol/server-memory, -filesystem,
// -everything) plus the example capabilities as direct tools of a second `mcp serve` (`spaces[].directTools`). A real
// tokenizer (gpt-tokenizer, o200k_base) counts what the model reads (each tool's name, description and input schema —
// what an MCP client passes to the model API — and the instructions, once per task; every result) and writes
// (arguments, code, the final answer), and the turns; each task's checker judges the final answer. Code mode runs
// twice: with every built-in tool listed (the default) and with the lean surface (`server.tools: ['code']`).
//
// Run after `npm run build`:   node bench/tokens.mjs [--json] [--tools] [--only <task id prefix>]
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { TOOL_GROUPS } from '@agent-spaces/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFixtures } from './tokens/fixtures.mjs';
import { TASKS } from './tokens/tasks.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'packages/cli/bin/agent-spaces.js');
const serverEntry = (name) => join(repo, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
/** The example capabilities, served as direct tools in direct mode (their tools are left out of code mode's list). */
const DIRECT_CAPABILITIES = ['notes', 'company-crm', 'train-schedule', 'weather'];
const { values: flags } = parseArgs({ options: { json: { type: 'boolean' }, tools: { type: 'boolean' }, only: { type: 'string' } } });
/** The config file of the lean surface: the same project, listing only the `code` group of built-in tools. */
const LEAN_CONFIG = 'agent-spaces.lean.json';

/** The temp project: the example capabilities, the three MCP servers as capabilities, one space with direct tools. */
async function makeProject() {
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-tokens-'));
  await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await cp(join(repo, 'capabilities'), join(dir, 'capabilities'), { recursive: true });
  const files = join(dir, 'files');
  await writeFixtures(files, [join(dir, 'memory-code.jsonl'), join(dir, 'memory-direct.jsonl')]);
  const node = process.execPath;
  const config = {
    capabilities: ['capabilities/*.ts', 'capabilities/*.json'],
    mcpServers: {
      memory: { command: node, args: [serverEntry('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory-code.jsonl') } },
      filesystem: { command: node, args: [serverEntry('server-filesystem'), files] },
      everything: { command: node, args: [serverEntry('server-everything'), 'stdio'] },
    },
    // The example CRM asks before it creates a ticket, the filesystem server's write_file is destructive (so asks), and
    // the timetable allows 100 calls a minute: a benchmark answers for the person and lifts the limit.
    policies: { rules: { 'company-crm.createTicket': 'allow', 'mcp-filesystem.writeFile': 'allow' }, rateLimits: { 'train-schedule': { requests: 100000, period: 'minute' } } },
    spaces: [{ id: 'bench', name: 'Bench', description: 'Company data: CRM, notes, trains, weather, a knowledge graph, files and test tools.', directTools: DIRECT_CAPABILITIES.map((id) => `${id}.*`) }],
  };
  await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify(config, null, 2));
  await writeFile(join(dir, LEAN_CONFIG), JSON.stringify({ ...config, server: { tools: ['code'] } }, null, 2));
  await promisify(execFile)(node, [cli, 'capabilities', 'build'], { cwd: dir, timeout: 180_000 });
  return { dir, files, memoryFile: join(dir, 'memory-direct.jsonl') };
}

/** An official SDK client of a server spawned over stdio. */
async function connect(command, args, options = {}) {
  const client = new Client({ name: 'tokens-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore', ...options }));
  return client;
}

/**
 * What the model reads of a tool list: each tool's name, description and input schema, as MCP clients pass tools to
 * a model API (Anthropic's `name`/`description`/`input_schema`, OpenAI's function `name`/`description`/`parameters`);
 * `title`, `annotations` and `outputSchema` stay in the client (docs/tokens.md, "What is counted"). Used for both modes.
 */
function toolDefinitions(tools) {
  return JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
}

/** The text a model reads of a tool result: its text blocks, other blocks as JSON. */
function resultText(result) {
  return (result.content ?? []).map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
}

/** A result's text parsed as JSON when it is JSON. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What one task cost in one mode: tokens read and written, turns, and whether the checker accepted the answer. */
class Trajectory {
  constructor(context) {
    this.fixed = countTokens(context);
    this.in = this.fixed;
    this.out = 0;
    this.turns = 0;
    /** Input tokens of every model request when each turn sends the whole conversation again (no prompt cache). */
    this.billed = 0;
  }

  /** A new model turn: it reads the whole conversation so far. */
  #turn() {
    this.turns += 1;
    this.billed += this.in + this.out;
  }

  /** One tool call in a turn of its own (or of `turn`): the model writes its name and arguments, then reads its result. */
  async call(client, name, args, turn = true) {
    if (turn) this.#turn();
    this.out += countTokens(JSON.stringify({ name, arguments: args }));
    const result = await client.callTool({ name, arguments: args });
    const text = resultText(result);
    this.in += countTokens(text);
    if (result.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
    return parsed(text);
  }

  /** Calls made in one turn (parallel tool calls): `calls` are [client, name, args]. */
  parallel(calls) {
    this.#turn();
    return Promise.all(calls.map(([client, name, args]) => this.call(client, name, args, false)));
  }

  /** The model's final answer: written in a last turn. */
  answer(value) {
    this.#turn();
    this.out += countTokens(JSON.stringify(value));
    return value;
  }
}

/**
 * Code mode on one surface (`code`: every built-in tool listed; `lean`: the `code` group only): the agent searches
 * (and describes) as the task's reference says, then runs its code with `execute`.
 */
async function runCode(task, servers, ctx, surface) {
  const { client, context } = servers[surface];
  const t = new Trajectory(context);
  for (const query of task.search ?? []) await t.call(client, 'search_capabilities', { query });
  for (const capability of task.describe ?? []) await t.call(client, 'describe_capabilities', { capability });
  const run = await t.call(client, 'execute', { code: task.code({ ...ctx, mode: 'code' }) });
  return { t, answer: t.answer(run.result) };
}

/** Direct mode: the task's reference trajectory of tool calls, against the MCP servers and the direct tools. */
async function runDirect(task, servers, ctx) {
  const t = new Trajectory(servers.directContext);
  const tools = {
    memory: (name, args = {}) => [servers.memory, name, args],
    fs: (name, args = {}) => [servers.filesystem, name, args],
    everything: (name, args = {}) => [servers.everything, name, args],
    cap: (name, args = {}) => [servers.direct, name, args],
  };
  const call = ([client, name, args]) => t.call(client, name, args);
  const answer = await task.direct({ call, parallel: (calls) => t.parallel(calls), ...tools }, { ...ctx, mode: 'direct' });
  return { t, answer: t.answer(answer) };
}

/** Starts every server and reads the fixed context of each mode (instructions and tool lists). */
async function startServers(project) {
  const node = process.execPath;
  const env = { ...process.env, MEMORY_FILE_PATH: project.memoryFile };
  const [code, lean, direct, memory, filesystem, everything] = await Promise.all([
    connect(node, [cli, 'mcp', 'serve', '--stdio'], { cwd: project.dir }),
    connect(node, [cli, 'mcp', 'serve', '--stdio', '--config', LEAN_CONFIG], { cwd: project.dir }),
    connect(node, [cli, 'mcp', 'serve', '--stdio'], { cwd: project.dir }),
    connect(node, [serverEntry('server-memory')], { env }),
    connect(node, [serverEntry('server-filesystem'), project.files]),
    connect(node, [serverEntry('server-everything'), 'stdio']),
  ]);
  const isDirect = (tool) => DIRECT_CAPABILITIES.some((id) => tool.name.startsWith(`${id}_`));
  const codeTools = (await code.listTools()).tools.filter((tool) => !isDirect(tool));
  const leanTools = (await lean.listTools()).tools.filter((tool) => !isDirect(tool));
  const directTools = (await direct.listTools()).tools.filter(isDirect);
  const serverTools = await Promise.all([memory, filesystem, everything].map(async (client) => (await client.listTools()).tools));
  return {
    code: { client: code, context: `${code.getInstructions() ?? ''}\n${toolDefinitions(codeTools)}` },
    lean: { client: lean, context: `${lean.getInstructions() ?? ''}\n${toolDefinitions(leanTools)}` },
    direct,
    memory,
    filesystem,
    everything,
    directContext: toolDefinitions([...serverTools.flat(), ...directTools]),
    codeTools,
    counts: { codeTools: codeTools.length, leanTools: leanTools.length, directTools: serverTools.flat().length + directTools.length },
    close: () => Promise.all([code, lean, direct, memory, filesystem, everything].map((client) => client.close())),
  };
}

/** One task in both modes: each mode's figures and whether its answer passed the checker. */
async function runTask(task, servers, ctx) {
  const row = { id: task.id, category: task.category };
  const modes = [['code', (...args) => runCode(...args, 'code')], ['lean', (...args) => runCode(...args, 'lean')], ['direct', runDirect]];
  for (const [mode, run] of modes) {
    try {
      const { t, answer } = await run(task, servers, ctx);
      row[mode] = { in: t.in, out: t.out, turns: t.turns, fixed: t.fixed, billed: t.billed, ok: task.check(answer) === true, answer };
    } catch (error) {
      row[mode] = { in: 0, out: 0, turns: 0, fixed: 0, billed: 0, ok: false, error: error.message.slice(0, 300) };
    }
  }
  return row;
}

const sum = (rows, mode, key) => rows.reduce((total, row) => total + row[mode][key], 0);
const pad = (text, width) => String(text).padStart(width);
const ratio = (code, direct) => (direct === 0 ? '—' : `${((100 * code) / direct).toFixed(0)} %`);

/**
 * Prints one line of the table: tokens read, written and turns of code mode on `surface` and of direct calls; code's
 * share of direct's tokens read, of everything (read and written), of what was read besides the tool lists, and of
 * the input billed over all turns.
 */
function line(label, rows, surface = 'lean') {
  const f = (mode, key) => sum(rows, mode, key);
  const [ci, co, di, dout] = [f(surface, 'in'), f(surface, 'out'), f('direct', 'in'), f('direct', 'out')];
  const failed = rows.filter((row) => !row[surface].ok || !row.direct.ok).length;
  const winner = ci + co > di + dout ? 'direct' : 'code';
  const shares = [ratio(ci, di), ratio(ci + co, di + dout), ratio(ci - f(surface, 'fixed'), di - f('direct', 'fixed')), ratio(f(surface, 'billed'), f('direct', 'billed'))];
  console.log(`${label.padEnd(36)}${pad(ci, 7)}${pad(co, 6)}${pad(f(surface, 'turns'), 4)} |${pad(di, 7)}${pad(dout, 6)}${pad(f('direct', 'turns'), 4)} |${shares.map((x) => pad(x, 7)).join('')}  ${winner}${failed ? `  (${failed} failed)` : ''}`);
}

const MODES = ['code', 'lean', 'direct'];
const isMultiStep = (row) => row.category !== 'direct-best';

/** The table: per task and per category on the lean surface, then the totals of both surfaces. */
function printTable(rows, counts) {
  console.log(`Tasks: ${rows.length}. Tool lists: code mode ${counts.codeTools} tools (default) or ${counts.leanTools} (lean, server.tools: ['code']) + instructions; direct mode ${counts.directTools} tools. Tokenizer: o200k_base.`);
  console.log(`${''.padEnd(36)}${'code mode (lean)'.padStart(17)} |${'direct calls'.padStart(17)} |${'code as % of direct'.padStart(28)}`);
  console.log(`${'task'.padEnd(36)}${pad('in', 7)}${pad('out', 6)}${pad('t', 4)} |${pad('in', 7)}${pad('out', 6)}${pad('t', 4)} |${['in', 'all', 'in-var', 'billed'].map((x) => pad(x, 7)).join('')}  cheaper`);
  for (const row of rows) line(`${row.category}/${row.id}`, [row]);
  console.log('-- per category (lean surface)');
  for (const category of [...new Set(rows.map((row) => row.category))]) line(category, rows.filter((row) => row.category === category));
  for (const [surface, name] of [['lean', 'lean surface'], ['code', 'default surface']]) {
    console.log(`-- total, ${name}`);
    line('all tasks', rows, surface);
    line('multi-step tasks (not direct-best)', rows.filter(isMultiStep), surface);
  }
  const variable = rows.filter((row) => row.direct.in - row.direct.fixed < row.lean.in - row.lean.fixed).map((row) => row.id);
  const wins = rows.filter((row) => row.direct.in + row.direct.out < row.lean.in + row.lean.out).map((row) => row.id);
  console.log(`Lean surface: direct calls cost fewer tokens (in + out) on ${wins.length} of ${rows.length} tasks${wins.length ? `: ${wins.join(', ')}` : ''}.`);
  console.log(`Leaving the tool lists aside, direct calls read fewer tokens on ${variable.length} of ${rows.length} tasks: ${variable.join(', ') || 'none'}.`);
  for (const row of rows.filter((r) => MODES.some((mode) => !r[mode].ok))) {
    const status = (mode) => (row[mode].ok ? 'ok' : (row[mode].error ?? JSON.stringify(row[mode].answer)?.slice(0, 200)));
    console.log(`FAILED ${row.id}: ${MODES.map((mode) => `${mode} ${status(mode)}`).join('; ')}`);
  }
}

/** What each group of built-in tools (`server.tools`, docs/mcp-server.md) adds to what the model reads, per tool with `--tools`. */
function printGroups(tools) {
  const cost = (list) => countTokens(toolDefinitions(list)) - countTokens(toolDefinitions([]));
  console.log('Tool groups (server.tools): tokens of the name, description and input schema of their tools');
  for (const [group, names] of Object.entries(TOOL_GROUPS)) {
    const listed = tools.filter((tool) => names.includes(tool.name));
    if (listed.length > 0) console.log(`  ${group.padEnd(12)}${pad(cost(listed), 6)}  (${listed.length} tools)`);
    if (flags.tools) for (const tool of listed) console.log(`    ${tool.name.padEnd(26)}${pad(cost([tool]), 6)}`);
  }
}

const started = performance.now();
const project = await makeProject();
const servers = await startServers(project);
try {
  const ctx = { root: project.files };
  const rows = [];
  for (const task of TASKS.filter((t) => !flags.only || t.id.startsWith(flags.only))) rows.push(await runTask(task, servers, ctx));
  if (flags.json) console.log(JSON.stringify({ rows, counts: servers.counts }, null, 2));
  else {
    printTable(rows, servers.counts);
    printGroups(servers.codeTools);
  }
  console.log(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  if (rows.some((row) => MODES.some((mode) => !row[mode].ok))) process.exitCode = 1;
} finally {
  await servers.close();
  await rm(project.dir, { recursive: true, force: true });
}
