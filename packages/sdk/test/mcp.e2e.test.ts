import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, WireError } from '@agent-spaces/capabilities';
import { buildCapabilities, configSources, loadConfig, type BuildReport } from '@agent-spaces/compiler';
import { createSpace, type RunResult, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/**
 * MCP servers end to end: an `agent-spaces.config.json` with `mcpServers` for the official servers in node_modules
 * (stdio, and server-everything over Streamable HTTP on 127.0.0.1) plus a fixture server whose tools come from a
 * file, built with the compiler and called by agent scripts in the sandbox through `createSpace`.
 */

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const serverScript = (pkg: string) => join(repo, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');
const fixtureServer = fileURLToPath(new URL('../../../test/fixtures/mcp-tools-server.mjs', import.meta.url));
const SECRET = 'mcp-e2e-secret-7731';
const TOOLS = [
  { name: 'hello', description: 'Greets', inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } },
  { name: 'wait', description: 'Never answers until cancelled', inputSchema: { type: 'object' } },
  { name: 'env', description: 'A variable of its environment', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
];

let project: Project;
let dataDir: string;
let http: { port: number; child: ChildProcess };
let firstBuild: BuildReport;
let space: Space;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startHttpEverything(): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript('server-everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${output}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${output}`)));
  });
  return { port, child };
}

/** Pids of this process's children whose command line holds every one of `parts` (Linux `/proc`). */
function childPids(...parts: string[]): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return ppid === process.pid && parts.every((part) => cmdline.some((arg) => arg.includes(part)));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function build(): Promise<BuildReport> {
  const { config, rootDir: root } = await loadConfig({ cwd: project.dir });
  return buildCapabilities({ rootDir: root, sources: config.capabilities, configSources: configSources(config), outDir: config.outDir });
}

/** The result of a run that must succeed; a failed run fails the test with its error. */
async function resultOf(run: PromiseLike<RunResult>): Promise<unknown> {
  const outcome = await run;
  if (!outcome.ok) throw new Error(`the run failed: ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result;
}

/** The error of a run that must fail. */
async function errorOf(run: PromiseLike<RunResult>): Promise<WireError> {
  const outcome = await run;
  if (outcome.ok) throw new Error(`the run succeeded with ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

const statuses = (report: BuildReport) => Object.fromEntries(report.capabilities.map((entry) => [entry.id, entry.status]));

beforeAll(async () => {
  project = await makeProject();
  dataDir = project.path('data');
  await mkdir(dataDir);
  await writeFile(join(dataDir, 'trains.txt'), 'Central 07:12\nHarbour 07:40\n');
  await project.write({ 'tools.json': TOOLS });
  // A secret from .env reaches the fixture only as an environment variable at start-up, never any output file.
  await project.write({ '.env': `FIXTURE_TOKEN=${SECRET}\n` });
  http = await startHttpEverything();
  const config = {
    capabilities: [],
    mcpServers: {
      filesystem: { command: process.execPath, args: [serverScript('server-filesystem'), dataDir] },
      memory: { command: process.execPath, args: [serverScript('server-memory')], env: { MEMORY_FILE_PATH: project.path('memory.jsonl') } },
      everything: { command: process.execPath, args: [serverScript('server-everything'), 'stdio'] },
      remote: { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` },
      fixture: {
        command: process.execPath,
        args: [fixtureServer],
        env: { TOOLS_FILE: project.path('tools.json'), CANCEL_MARKER: project.path('cancelled.txt'), TOKEN: '${FIXTURE_TOKEN}' },
      },
      broken: { command: project.path('no-such-server') },
    },
  };
  await project.write({ 'agent-spaces.config.json': JSON.stringify(config, null, 2) });
  firstBuild = await build();
  space = await createSpace({ rootDir: project.dir, onApproval: () => true });
}, 120_000);

afterAll(async () => {
  await space?.close();
  http?.child.kill();
});

describe('building mcpServers from the config', () => {
  it('builds one capability per server; a server that cannot start fails alone, naming the server and reason', () => {
    expect(statuses(firstBuild)).toEqual({
      'mcp-broken': 'failed',
      'mcp-everything': 'built',
      'mcp-filesystem': 'built',
      'mcp-fixture': 'built',
      'mcp-memory': 'built',
      'mcp-remote': 'built',
    });
    const broken = firstBuild.capabilities.find((entry) => entry.id === 'mcp-broken')!;
    expect(broken.file).toBe('mcpServers.broken');
    expect(broken.diagnostics).toMatchObject([{ code: 'MCP_UNAVAILABLE', severity: 'error', file: 'mcpServers.broken' }]);
    expect(broken.diagnostics[0]!.message).toContain('"broken"');
    expect(broken.diagnostics[0]!.message).toContain('spawn_failed');
  });

  it('writes typed modules and never the expanded secret', async () => {
    const dir = project.path('.agent-spaces/capabilities');
    const dts = await readFile(join(dir, 'mcp-everything/index.d.ts'), 'utf8');
    expect(dts).toMatch(/getSum\(params: GetSumParams\): Promise<McpToolResult>;/);
    const meta = JSON.parse(await readFile(join(dir, 'mcp-fixture/meta.json'), 'utf8')) as { executor: unknown };
    expect(meta.executor).toMatchObject({ kind: 'mcp', server: 'fixture', toolsHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const id of readdirSync(dir)) {
      for (const file of readdirSync(join(dir, id))) expect(readFileSync(join(dir, id, file), 'utf8')).not.toContain(SECRET);
    }
  });
});

describe('agent scripts call the servers through createSpace', () => {
  it('reads and writes files in a temp dir with server-filesystem', async () => {
    const result = await resultOf(space.run(`
      import { filesystem } from '@capabilities/mcp-filesystem';
      const listing = await filesystem.listDirectory({ path: ${JSON.stringify(dataDir)} });
      await filesystem.writeFile({ path: ${JSON.stringify(join(dataDir, 'plan.txt'))}, content: 'catch the 07:12' });
      const plan = await filesystem.readTextFile({ path: ${JSON.stringify(join(dataDir, 'plan.txt'))} });
      export default { listing: listing.content, plan: plan.content };
    `));
    expect(result).toEqual({ listing: '[FILE] trains.txt', plan: 'catch the 07:12' });
    expect(await readFile(join(dataDir, 'plan.txt'), 'utf8')).toBe('catch the 07:12');
  });

  it("builds and queries server-memory's knowledge graph", async () => {
    const result = await resultOf(space.run(`
      import { memory } from '@capabilities/mcp-memory';
      await memory.createEntities({ entities: [{ name: 'Central', entityType: 'station', observations: ['has platform 4'] }] });
      await memory.addObservations({ observations: [{ entityName: 'Central', contents: ['opens at 05:00'] }] });
      const found = await memory.searchNodes({ query: 'platform' });
      export default found.entities.map((e) => [e.name, e.observations]);
    `));
    expect(result).toEqual([['Central', ['has platform 4', 'opens at 05:00']]]);
  });

  it.each(['everything', 'remote'])("calls %s's get-sum, echo and structured-content tools", async (server) => {
    const result = await resultOf(space.run(`
      import { ${server} } from '@capabilities/mcp-${server}';
      const sum = await ${server}.getSum({ a: 2, b: 40 });
      const echo = await ${server}.echo({ message: 'hi' });
      const weather = await ${server}.getStructuredContent({ location: 'Chicago' });
      export default { sum: sum.text, echo: echo.text, temperature: weather.temperature };
    `));
    expect(result).toEqual({ sum: 'The sum of 2 and 40 is 42.', echo: 'Echo: hi', temperature: 36 });
  });

  it('composes two servers in one run', async () => {
    const result = await resultOf(space.run(`
      import { filesystem } from '@capabilities/mcp-filesystem';
      import { memory } from '@capabilities/mcp-memory';
      const text = (await filesystem.readTextFile({ path: ${JSON.stringify(join(dataDir, 'trains.txt'))} })).content;
      const trains = text.trim().split('\\n').map((line: string) => line.split(' '));
      await memory.createEntities({
        entities: trains.map(([station, time]: string[]) => ({ name: 'train ' + time, entityType: 'train', observations: ['from ' + station] })),
      });
      const graph = await memory.openNodes({ names: ['train 07:12', 'train 07:40'] });
      export default graph.entities.map((e) => e.name + ' ' + e.observations.join(','));
    `));
    expect(result).toEqual(['train 07:12 from Central', 'train 07:40 from Harbour']);
  });

  it('turns a tool error (isError) into a CapabilityError agent code can catch', async () => {
    const result = await resultOf(space.run(`
      import { filesystem } from '@capabilities/mcp-filesystem';
      try {
        await filesystem.readTextFile({ path: ${JSON.stringify(join(dataDir, 'missing.txt'))} });
        return 'no error';
      } catch (e) {
        if (!(e instanceof CapabilityError)) throw e;
        return { name: e.name, code: e.code, capability: e.capability, tool: e.data?.tool };
      }
    `));
    expect(result).toEqual({ name: 'CapabilityError', code: 'HANDLER_ERROR', capability: 'mcp-filesystem', tool: 'read_text_file' });
  });

  it('starts a server with ${VAR} from .env, and redacts the value from what the run returns', async () => {
    const run = space.run(`import { fixture } from '@capabilities/mcp-fixture'; return (await fixture.env({ name: 'TOKEN' })).text;`);
    expect(await resultOf(run)).toBe('[REDACTED:FIXTURE_TOKEN]');
    const events: RunEvent[] = [];
    for await (const event of run) events.push(event);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it('turns progress notifications into run events', async () => {
    const events: RunEvent[] = [];
    await resultOf(
      space.run(
        `import { everything } from '@capabilities/mcp-everything';
         return (await everything.triggerLongRunningOperation({ duration: 0.3, steps: 3 })).text;`,
        { onEvent: (event) => events.push(event) },
      ),
    );
    const call = events.find((event) => event.type === 'capabilityCall');
    const progress = events.filter((event) => event.type === 'progress');
    // The server may answer before its last notification is handled: the last step's event can be missing.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((event) => [event.callId, event.function, event.progress, event.total])).toEqual(
      [1, 2, 3].slice(0, progress.length).map((step) => [call?.type === 'capabilityCall' ? call.callId : '?', 'triggerLongRunningOperation', step, 3]),
    );
  });

  it('cancels the server-side request when the run is aborted', async () => {
    const marker = project.path('cancelled.txt');
    // Connected first, so the request is on its way when the run is aborted.
    await resultOf(space.run(`import { fixture } from '@capabilities/mcp-fixture'; return (await fixture.hello({ who: 'x' })).text;`));
    const controller = new AbortController();
    const run = space.run(`import { fixture } from '@capabilities/mcp-fixture'; await fixture.wait(); return 'answered';`, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'capabilityCall') setTimeout(() => controller.abort(), 200);
      },
    });
    expect((await errorOf(run)).code).toBe('ABORTED');
    await expect.poll(() => existsSync(marker), { timeout: 10_000 }).toBe(true);
  });

  it('reports a server killed mid-call as a typed error, and the next call starts it again', async () => {
    await resultOf(space.run(`import { everything } from '@capabilities/mcp-everything'; return (await everything.echo({ message: 'warm' })).text;`));
    const [pid] = childPids('server-everything', 'stdio');
    expect(pid).toBeDefined();
    let killedAt = 0;
    let failedAt = 0;
    const run = space.run(
      `import { everything } from '@capabilities/mcp-everything';
       let failure;
       try {
         await everything.triggerLongRunningOperation({ duration: 30, steps: 30 });
       } catch (e) {
         if (!(e instanceof CapabilityError)) throw e;
         failure = { name: e.name, code: e.code, reason: e.data?.reason };
       }
       const after = await everything.getSum({ a: 1, b: 2 });
       return { failure, after: after.text };`,
      {
        onEvent: (event) => {
          if (event.type === 'capabilityCall' && event.function === 'triggerLongRunningOperation') {
            setTimeout(() => {
              killedAt = performance.now();
              process.kill(pid!, 'SIGKILL');
            }, 300);
          }
          if (event.type === 'capabilityResult' && event.function === 'triggerLongRunningOperation') failedAt = performance.now();
        },
      },
    );
    expect(await resultOf(run)).toEqual({
      failure: { name: 'CapabilityError', code: 'MCP_UNAVAILABLE', reason: 'server_exited' },
      after: 'The sum of 1 and 2 is 3.',
    });
    // Reported when the process ends, not when the 30 s operation would have (a loose bound: the machine may be busy).
    expect(failedAt - killedAt).toBeLessThan(10_000);
    const now = childPids('server-everything', 'stdio');
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(pid);
  });
});

describe('where createSpace takes server configs from', () => {
  it('uses the mcpServers option over the project config, and names a server it lacks', async () => {
    await expect(createSpace({ rootDir: project.dir, capabilities: ['mcp:memory'], mcpServers: {} })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { id: 'mcp-memory', server: 'memory' },
    });
    const own = await createSpace({
      rootDir: project.dir,
      capabilities: ['mcp-everything'],
      mcpServers: { everything: { command: process.execPath, args: [serverScript('server-everything'), 'stdio'] } },
    });
    try {
      const run = own.run(`import { everything } from '@capabilities/mcp-everything'; return (await everything.getSum({ a: 1, b: 1 })).text;`);
      expect(await resultOf(run)).toBe('The sum of 1 and 1 is 2.');
    } finally {
      await own.close();
    }
  });
});

describe('a server whose tools changed since the build', () => {
  it('fails the run with CAPABILITY_STALE; a rebuild reports only that server as built', async () => {
    const before = space.run(`import { fixture } from '@capabilities/mcp-fixture'; return (await fixture.hello({ who: 'a' })).text;`);
    expect(await resultOf(before)).toBe('hello {"who":"a"}');

    await project.write({ 'tools.json': [...TOOLS, { name: 'bye', inputSchema: { type: 'object' } }] });
    const stale = await createSpace({ rootDir: project.dir, capabilities: ['mcp:fixture'] });
    try {
      const error = await errorOf(stale.run(`import { fixture } from '@capabilities/mcp-fixture'; return (await fixture.hello({ who: 'b' })).text;`));
      expect(error).toMatchObject({ data: { code: 'CAPABILITY_STALE', capabilityData: { server: 'fixture' } } });
      expect(error.message).toContain('agent-spaces capabilities build');
    } finally {
      await stale.close();
    }

    const rebuilt = await build();
    expect(statuses(rebuilt)).toEqual({
      'mcp-broken': 'failed',
      'mcp-everything': 'unchanged',
      'mcp-filesystem': 'unchanged',
      'mcp-fixture': 'built',
      'mcp-memory': 'unchanged',
      'mcp-remote': 'unchanged',
    });
    const fresh = await createSpace({ rootDir: project.dir, capabilities: ['mcp:fixture'] });
    try {
      expect(await resultOf(fresh.run(`import { fixture } from '@capabilities/mcp-fixture'; return (await fixture.bye()).text;`))).toBe('bye {}');
    } finally {
      await fresh.close();
    }
  });
});
