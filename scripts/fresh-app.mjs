// The install a user does, checked end to end (a CI step of .ci/run: it takes minutes, most of them compiling
// isolated-vm). Packs the tarballs (scripts/pack.mjs), makes a fresh app in the temp folder (outside the
// repository), installs them with the README's command, then runs there: `init`, `capabilities build`, `run`, a
// `createSpace()` script, and `mcp serve` answering an MCP client. Prints the install time and size; exits 1 at the
// first step that fails. `--no-build` is passed on to the pack script; `--keep` leaves the app folder.
//   node scripts/fresh-app.mjs [--no-build] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTsServer } from '../test/fixtures/tsserver.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const packs = join(root, 'packs');
const keep = process.argv.includes('--keep');

/** Runs one step in the app; returns its stdout, or exits 1 showing what it printed. */
function step(title, command, args, options = {}) {
  const started = performance.now();
  try {
    const stdout = execFileSync(command, args, { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000, ...options });
    console.log(`✓ ${title} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return { stdout, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    fail(`${title}\n${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout || error.stderr ? '' : error.message}`);
  }
}

function expect(title, text, wanted) {
  if (!text.includes(wanted)) fail(`${title}: expected ${JSON.stringify(wanted)} in:\n${text}`);
}

function fail(message) {
  console.error(`✗ ${message}`);
  if (!keep) rmSync(app, { recursive: true, force: true });
  process.exit(1);
}

try {
  execFileSync(process.execPath, [join(root, 'scripts/pack.mjs'), ...process.argv.slice(2).filter((arg) => arg === '--no-build')], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1);
}
const app = mkdtempSync(join(tmpdir(), 'agent-spaces-fresh-app-'));
console.log(`fresh app: ${app}`);
step('npm init', 'npm', ['init', '-y']);
// The README's command, `npm install /path/to/agent-spaces/packs/*.tgz`, with the glob expanded as a shell does.
const tarballs = readdirSync(packs).filter((file) => file.endsWith('.tgz')).map((file) => join(packs, file));
const install = step('npm install packs/*.tgz', 'npm', ['install', '--no-audit', '--no-fund', ...tarballs]);
const size = execFileSync('du', ['-sk', 'node_modules'], { cwd: app, encoding: 'utf8' }).split('\t')[0];

step('agent-spaces init --mcp claude', 'npx', ['agent-spaces', 'init', '--mcp', 'claude']);
step('agent-spaces capabilities build', 'npx', ['agent-spaces', 'capabilities', 'build']);
const run = step('agent-spaces run agents/hello.ts', 'npx', ['agent-spaces', 'run', 'agents/hello.ts']);
expect('run', run.stdout, 'Hello, world!');
step('agent-spaces doctor', 'npx', ['agent-spaces', 'doctor']);

// An editor on the app (tsserver of the app's typescript) loads the tsconfig's plugin from the installed packages: a
// top-level return is no error, a Node global in the returned expression is one, where `agent-spaces check` says.
writeFileSync(join(app, 'agents/returning.ts'), "import { hello } from '@capabilities/hello';\nif (Date.now() < 0) return process.pid;\nreturn (await hello.greet({ name: 'editor' })).message;\n");
const started = performance.now();
let checked;
try {
  checked = execFileSync('npx', ['agent-spaces', 'check', 'agents/returning.ts', '--json'], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch (error) {
  checked = error.stdout; // exit 1: it has type errors
}
let checkSays;
try {
  checkSays = JSON.parse(checked).diagnostics.map((d) => `${d.line}:${d.column} TS${d.code}`).join(', ');
} catch {
  fail(`agent-spaces check agents/returning.ts --json: not a JSON report:\n${checked}`);
}
const tsserver = startTsServer(join(app, 'node_modules/typescript/lib/tsserver.js'));
const editor = await tsserver.semanticDiagnostics(join(app, 'agents/returning.ts')).finally(() => tsserver.close());
const editorSays = editor.map((d) => `${d.line}:${d.column} TS${d.code}`).join(', ');
if (checkSays !== '2:28 TS2591' || editorSays !== checkSays) fail(`agents/returning.ts: expected 2:28 TS2591 (process) from check and the editor; check: ${checkSays}; editor: ${editorSays}`);
console.log(`✓ an editor (tsserver with @agent-spaces/ts-plugin) and check agree on a top-level return (${((performance.now() - started) / 1000).toFixed(1)} s)`);

writeFileSync(
  join(app, 'sdk.mjs'),
  `import { createSpace } from '@agent-spaces/sdk';
const space = await createSpace();
const run = await space.run("import { hello } from '@capabilities/hello';\\nexport default (await hello.greet({ name: 'sdk' })).message;");
console.log(JSON.stringify(run.ok ? run.result : run.error));
await space.close();
`,
);
const sdk = step('createSpace() script, plain node', process.execPath, ['sdk.mjs']);
expect('createSpace() script, plain node', sdk.stdout, '"Hello, sdk!"');

writeFileSync(
  join(app, 'mcp-client.mjs'),
  `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const transport = new StdioClientTransport({ command: 'npx', args: ['agent-spaces', 'mcp', 'serve'], stderr: 'ignore' });
const client = new Client({ name: 'fresh-app', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'execute', arguments: { code: "import { hello } from '@capabilities/hello';\\nexport default (await hello.greet({ name: 'mcp' })).message;" } });
console.log(tools.map((t) => t.name).join(','), JSON.stringify(result.content));
await client.close();
`,
);
const mcp = step('mcp serve answering an MCP client', process.execPath, ['mcp-client.mjs']);
expect('mcp serve', mcp.stdout, 'execute');
expect('mcp serve', mcp.stdout, 'Hello, mcp!');

console.log(`fresh app: install ${install.seconds.toFixed(1)} s, node_modules ${(Number(size) / 1024).toFixed(0)} MiB, ${tarballs.length} tarballs`);
if (!keep) rmSync(app, { recursive: true, force: true });
