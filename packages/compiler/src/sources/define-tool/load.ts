/**
 * Imports a bundled `defineTool()` file in a child process with a time limit, so that what its top level does (exit,
 * hang, crash, print) stays there: the build reads its definitions and goes on with the other sources either way.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { withCodeFile } from '../../bundle.js';

/** How long importing one `defineTool()` file may take by default. */
const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** What a `defineTool()` file's exports hold, or why they could not be read. */
export type LoadResult =
  | { ok: true; namespace: Record<string, unknown> }
  | { ok: false; code: 'SOURCE_UNREADABLE' | 'TIMEOUT'; message: string };

/** Stands for a function in what the child sends back (functions cannot be copied between processes). */
const FUNCTION = '\u0000agent-spaces:function';
/** The last characters of the child's output kept for a failure's message. */
const OUTPUT_TAIL = 2_000;

/**
 * The child's program (node builtins only): imports the module, copies the exports that look like definitions with
 * each function replaced by {@link FUNCTION}, sends them and exits, whatever handles the module left open.
 */
const LOADER = `
const FUNCTION = ${JSON.stringify(FUNCTION)};
const copies = new Map();
const copy = (value) => {
  if (typeof value === 'function') return FUNCTION;
  if (typeof value !== 'object' || value === null) return value;
  if (copies.has(value)) return copies.get(value);
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    try { structuredClone(value); return value; } catch { return String(value); }
  }
  const out = Array.isArray(value) ? [] : {};
  copies.set(value, out);
  for (const [key, item] of Object.entries(value)) out[key] = copy(item);
  return out;
};
let reply;
try {
  const namespace = await import(process.argv[1]);
  const definitions = Object.entries(namespace).filter(([, v]) => typeof v === 'object' && v !== null && typeof v.name === 'string' && typeof v.functions === 'object' && v.functions !== null);
  reply = { exports: definitions.map(([name, value]) => [name, copy(value)]) };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error) };
}
process.send(reply, () => process.exit(0));
`;

/**
 * Imports `code` (an ES module, written to a uniquely named file in `dir` so bare imports resolve from the project)
 * in a child process and returns its definition-like exports, functions standing in as no-op functions. Fails with
 * `SOURCE_UNREADABLE` when importing throws, exits the process or kills it, and `TIMEOUT` when it takes longer than
 * `timeoutMs` (the child is killed). `name` names the source in messages.
 */
export function loadDefinitions(code: string, dir: string, name: string, timeoutMs = DEFAULT_LOAD_TIMEOUT_MS): Promise<LoadResult> {
  return withCodeFile(code, dir, name, (file) => runLoader(file, name, timeoutMs));
}

function runLoader(file: string, name: string, timeoutMs: number): Promise<LoadResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', LOADER, pathToFileURL(file).href], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_TAIL)));
    let reply: unknown;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('message', (message) => (reply ??= message));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, code: 'SOURCE_UNREADABLE', message: `importing ${name} failed to start a process: ${error.message}` });
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const tail = output.trim() === '' ? '' : `; its output ended with:\n${output.trim()}`;
      if (isReply(reply)) {
        if ('exports' in reply) return resolve({ ok: true, namespace: Object.fromEntries(reply.exports.map(([key, value]) => [key, revive(value)])) });
        return resolve({ ok: false, code: 'SOURCE_UNREADABLE', message: `importing ${name} threw: ${reply.error}` });
      }
      if (timedOut) {
        return resolve({ ok: false, code: 'TIMEOUT', message: `importing ${name} did not finish within ${timeoutMs} ms (a loop or a wait at its top level?)${tail}` });
      }
      const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode ?? 'unknown'}`;
      resolve({ ok: false, code: 'SOURCE_UNREADABLE', message: `importing ${name} ended its process: it ${how} before its exports could be read (process.exit() at its top level?)${tail}` });
    });
  });
}

function isReply(value: unknown): value is { exports: [string, unknown][] } | { error: string } {
  return typeof value === 'object' && value !== null && (Array.isArray((value as { exports?: unknown }).exports) || typeof (value as { error?: unknown }).error === 'string');
}

/** `value` with every {@link FUNCTION} marker replaced by a function (shared and cyclic members kept as they are). */
function revive(value: unknown, seen = new Set<object>()): unknown {
  if (value === FUNCTION) return stub;
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = revive(record[key], seen);
  }
  return value;
}

/** What a function of the definition becomes in the build: only its presence matters there. */
function stub(): void {}
