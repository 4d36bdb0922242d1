import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

// The MCP conformance suite (@modelcontextprotocol/conformance, server mode, its active scenarios) run against a real
// `mcp serve --conformance-fixtures`, offline: its figure is printed, and no check may fail.

const CONFORMANCE_BIN = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
/** Loaded into the conformance CLI: Node 20 support and no network access beyond this machine. */
const PRELOAD = fileURLToPath(new URL('./support/conformance-node.mjs', import.meta.url));
/** Checks passed by `mcp serve --conformance-fixtures` with @modelcontextprotocol/conformance 0.1.16 (10 of 32 before issue 31). */
const FLOOR = 40;
/** Scenarios that passed before the fixtures and the logging capability: they must still pass. */
const PASSED_BEFORE = ['server-initialize', 'ping', 'tools-list', 'tools-call-simple-text', 'tools-call-error', 'server-sse-multiple-streams', 'prompts-list', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let project: TestProject;
let server: HttpServe;
let outDir: string;

beforeAll(async () => {
  project = await createProject();
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'] }));
  server = new HttpServe(project.rootDir, { 'conformance-fixtures': true, 'log-format': 'json' });
  outDir = await mkdtemp(join(tmpdir(), 'agent-spaces-conformance-'));
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await project?.cleanup();
  if (outDir) await rm(outDir, { recursive: true, force: true });
}, 30_000);

/** Every check the suite wrote under `dir` (one `checks.json` per scenario), by scenario. */
async function readChecks(dir: string): Promise<Map<string, Check[]>> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of await readdir(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
    if (scenario === undefined) continue;
    byScenario.set(scenario, JSON.parse(await readFile(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return byScenario;
}

it('passes every check of the conformance suite in server mode, without network access', async () => {
  const url = await server.url();
  const run = await promisify(execFile)(process.execPath, ['--import', PRELOAD, CONFORMANCE_BIN, 'server', '--url', url, '-o', outDir], {
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: error.stdout ?? '', stderr: `${error.stderr ?? ''}\nexit code ${error.code}` }));
  expect(run.stderr).not.toContain('conformance-offline: refused');
  const checks = await readChecks(outDir);
  const all = [...checks.values()].flat().filter((check) => check.status === 'SUCCESS' || check.status === 'FAILURE');
  const passed = all.filter((check) => check.status === 'SUCCESS');
  const failures = all.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? ''}`);
  console.log(`conformance: ${passed.length} of ${all.length} checks passed`);
  expect(failures, run.stdout + run.stderr).toEqual([]);
  expect(passed.length).toBeGreaterThanOrEqual(FLOOR);
  for (const scenario of PASSED_BEFORE) expect(checks.get(scenario)?.some((check) => check.status === 'SUCCESS'), scenario).toBe(true);
}, 300_000);
