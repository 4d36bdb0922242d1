import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/**
 * Lean type errors (docs/sdk-and-cli.md, "Typechecking"): for a set of mistakes agents typically make against the example
 * capabilities and the memory MCP server's generated types, the whole `execute` answer the model reads stays within
 * 1 KB, and still shows the line and the declared signature (or declared name) to fix the code against.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const IMPORTS = {
  crm: "import { crm } from '@capabilities/company-crm';",
  trains: "import { trainSchedule } from '@capabilities/train-schedule';",
  notes: "import { notes } from '@capabilities/notes';",
  weather: "import { weather } from '@capabilities/weather';",
  memory: "import { memory } from '@capabilities/mcp-memory';",
};

/** One typical mistake: its code (the mistake on the last line) and what the answer must name to fix it. */
interface Misuse {
  name: string;
  imports: (keyof typeof IMPORTS)[];
  code: string;
  shows: string;
}

const MISUSES: Misuse[] = [
  { name: 'wrong argument type', imports: ['crm'], code: "await crm.searchCustomers({ query: 42 });", shows: 'crm.searchCustomers(params: { query: string; limit?: number }): Promise<Customer[]>' },
  { name: 'missing required field', imports: ['crm'], code: "await crm.createTicket({ subject: 'Broken login' });", shows: 'crm.createTicket(params: {' },
  { name: 'positional argument for the params object', imports: ['weather'], code: "await weather.getWeather('Berlin');", shows: 'weather.getWeather(params: { location: string;' },
  { name: 'value outside a union', imports: ['weather'], code: "await weather.getWeather({ location: 'Oslo', unit: 'kelvin' });", shows: 'unit?: "celsius" | "fahrenheit"' },
  { name: 'union member misspelt', imports: ['crm'], code: "await crm.createTicket({ customerId: 'c1', subject: 'Down', priority: 'urgent' });", shows: 'Promise<Ticket>' },
  { name: 'wrong nesting (MCP tool)', imports: ['memory'], code: "await memory.createEntities({ name: 'Ada', entityType: 'person', observations: [] });", shows: 'memory.createEntities(params: { entities:' },
  { name: 'missing nested field (MCP tool)', imports: ['memory'], code: "await memory.createEntities({ entities: [{ name: 'Ada', entityType: 'person' }] });", shows: 'Promise<CreateEntitiesResult>' },
  { name: 'misspelt function', imports: ['trains'], code: "await trainSchedule.getSchedul({ station: 'Central' });", shows: 'trainSchedule.getSchedule(params?: { station?: string; date?: string }): Promise<Trip[]>' },
  { name: 'misspelt parameter name', imports: ['trains'], code: "await trainSchedule.getTrainDetails({ trainID: 'IC-1' });", shows: 'trainSchedule.getTrainDetails(params: { trainId: string }): Promise<TrainDetails>' },
  { name: 'Promise not awaited', imports: ['trains'], code: "const trips = trainSchedule.getSchedule({ station: 'Central' });\nexport default trips.length;", shows: 'Promise<Trip[]>' },
  { name: 'Promise not awaited, read in console.log (MCP tool)', imports: ['memory'], code: 'const graph = memory.readGraph();\nconsole.log(graph.entities.length);', shows: 'memory.readGraph(): Promise<ReadGraphResult>' },
  { name: 'array result read as one record', imports: ['crm'], code: "const customers = await crm.searchCustomers({ query: 'acme' });\nconsole.log(customers.email);", shows: 'Promise<Customer[]>' },
  { name: 'misspelt result field', imports: ['weather'], code: "const now = await weather.getWeather({ location: 'Oslo' });\nexport default now.temp;", shows: 'now.temperature' },
  { name: 'field type mistaken', imports: ['trains'], code: "const details = await trainSchedule.getTrainDetails({ trainId: 'IC-1' });\nconst stops: number = details.stops;", shows: 'Promise<TrainDetails>' },
  { name: 'result union narrowed wrongly', imports: ['crm'], code: "const ticket = await crm.createTicket({ customerId: 'c1', subject: 'Down' });\nconst priority: 'high' = ticket.priority;", shows: 'Promise<Ticket>' },
  { name: 'method of the wrong type in a callback', imports: ['trains'], code: 'const trips = await trainSchedule.getSchedule();\nexport default trips.map((trip) => trip.platform.toFixed(1));', shows: 'Promise<Trip[]>' },
  { name: 'unknown field passed', imports: ['notes'], code: "await notes.create({ title: 'Trains', body: '05:42 Airport' });", shows: 'notes.create(params: { title: string; content: string }): Promise<Note>' },
  { name: 'string where the params object goes (MCP tool)', imports: ['memory'], code: "await memory.searchNodes('Ada');", shows: 'memory.searchNodes(params: { query: string }): Promise<SearchNodesResult>' },
  { name: 'arguments to a function that takes none (MCP tool)', imports: ['memory'], code: 'await memory.readGraph({});', shows: 'memory.readGraph(): Promise<ReadGraphResult>' },
];

/** Most bytes of the whole `execute` answer for one type error. */
const ANSWER_BUDGET = 1024;

let project: Project;
let client: Client;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const dir of ['capabilities', 'capabilities/data']) {
    for (const entry of await readdir(`${REPO}${dir}`, { withFileTypes: true })) {
      if (entry.isFile()) files[`${dir}/${entry.name}`] = await readFile(`${REPO}${dir}/${entry.name}`, 'utf8');
    }
  }
  const memory = { command: process.execPath, args: [`${REPO}node_modules/@modelcontextprotocol/server-memory/dist/index.js`], env: { MEMORY_FILE_PATH: 'memory.jsonl' } };
  const config = { capabilities: ['capabilities/*.ts', 'capabilities/*.json'], mcpServers: { memory } };
  project = await makeProject({ ...files, 'agent-spaces.config.json': config }, { nodeModules: true });
  const report = await project.build();
  expect(report.totals.failed).toBe(0);
  client = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'examples', name: 'Examples' }], space: { rootDir: project.dir } }));
}, 120_000);

afterAll(async () => {
  await client?.close();
});

describe('type errors of typical agent mistakes, over MCP', () => {
  it.each(MISUSES)('$name: within 1 KB, with the line and the declared signature', async ({ imports, code, shows }) => {
    const script = `${imports.map((i) => IMPORTS[i]).join('\n')}\n${code}`;
    const lines = script.split('\n');
    const answer = await callTool(client, 'execute', { code: script });
    expect(answer.body.code).toBe('TYPE_ERROR');
    expect(answer.body.data.diagnostics).toHaveLength(1);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(ANSWER_BUDGET);
    expect(answer.body.data.diagnostics[0].line).toBe(lines.length);
    expect(answer.body.message).toContain(`\n${lines.length} ${lines.at(-1)}\n`);
    expect(answer.body.message).toContain(shows);
  });

  it('keep what the budget cut out of the answer: no diagnostic carries its detail over MCP', async () => {
    // A long line: the source shown is cut around the column, the message still names the line.
    const long = `${IMPORTS.crm}\nconst note = ${JSON.stringify('x'.repeat(3000))}; await crm.searchCustomers({ query: 42 });`;
    const answer = await callTool(client, 'execute', { code: long });
    expect(answer.body.code).toBe('TYPE_ERROR');
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(ANSWER_BUDGET);
    expect(answer.body.message).toMatch(/^agent\.ts:2:\d+ - error TS2322/);
    expect(answer.body.message).toContain('…');
    expect(answer.body.data.diagnostics[0]).not.toHaveProperty('detail');
  });
});
