// `capabilities build --watch` as a user runs it, on the files the build read outside the watched folders: a module
// a capability imports from `lib/` or `shared/` (the root folder itself is watched, its sub-folders are not).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { startWatch, type WatchProcess } from './support/watch.js';

const memoryServer = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url));

const greeting = (word: string) => `export function greet(name: string): string {\n  return \`${word}, \${name}\`;\n}\n`;

/** The `init` capability, its handler's message made by `lib/greet.ts` (and `shared/mark.ts` when `mark`). */
function capability(original: string, mark: boolean): string {
  const imports = `import { greet } from '../lib/greet.js';\n${mark ? "import { mark } from '../shared/mark.js';\n" : ''}`;
  return imports + original.replace('message: `Hello, ${name}!`', `message: greet(name) + ${mark ? 'mark' : "'!'"}`);
}

/** What `agents/hello.ts` prints now (the built output run for real). */
async function runHello(dir: string): Promise<string> {
  const run = await runCli(dir, ['run', 'agents/hello.ts']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

describe('capabilities build --watch: the files the build read', () => {
  let watcher: WatchProcess | undefined;
  afterEach(async () => {
    if (watcher && watcher.child.exitCode === null) await watcher.stop();
  });

  it('rebuilds on an imported file, watches a new import, forgets a dropped one, and reports a removed input', async () => {
    const { dir } = await makeProject({}, { nodeModules: true });
    expect((await runCli(dir, ['init'])).code).toBe(0);
    const source = join(dir, 'capabilities/hello.ts');
    const original = await readFile(source, 'utf8');
    await mkdir(join(dir, 'lib'));
    await mkdir(join(dir, 'shared'));
    await writeFile(join(dir, 'lib/greet.ts'), greeting('Hello'));
    await writeFile(join(dir, 'shared/mark.ts'), "export const mark = '?';\n");
    await writeFile(source, capability(original, false));
    watcher = startWatch(dir);
    await watcher.nextLine(/^Watching for changes/);
    expect(await runHello(dir)).toContain('Hello, world!');

    // An edit of the imported file, outside every watched folder: rebuilt, and the new code runs.
    await writeFile(join(dir, 'lib/greet.ts'), greeting('Howdy'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \d\d:\d\d:\d\d lib\/greet\.ts: 1 built, 0 unchanged, 0 failed in \d+ ms$/);
    expect(await runHello(dir)).toContain('Howdy, world!');

    // A new import (another folder): watched after the rebuild that recorded it.
    await writeFile(source, capability(original, true));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ capabilities\/hello\.ts: 1 built/);
    await writeFile(join(dir, 'shared/mark.ts'), "export const mark = '!!!';\n");
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ shared\/mark\.ts: 1 built, 0 unchanged, 0 failed/);
    expect(await runHello(dir)).toContain('Howdy, world!!!');

    // The import dropped: its file is no longer watched (the next line is the edit of lib/greet.ts, not shared/mark.ts).
    await writeFile(source, capability(original, false));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ capabilities\/hello\.ts: 1 built/);
    await writeFile(join(dir, 'shared/mark.ts'), "export const mark = '...';\n");
    await new Promise((done) => setTimeout(done, 1000));
    await writeFile(join(dir, 'lib/greet.ts'), greeting('Hi'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ lib\/greet\.ts: 1 built/);

    // The imported file removed: said, and the rebuild fails naming it; the last good output stays and runs.
    await rm(join(dir, 'lib/greet.ts'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^✗ \S+ lib\/greet\.ts: removed \(read by capabilities\/hello\.ts\)$/);
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^✗ \S+ lib\/greet\.ts: 0 built, 0 unchanged, 1 failed/);
    expect(await watcher.nextLine(/✗ hello/)).toContain('keeps its last good output');
    expect(await watcher.nextLine(/^ +error /)).toContain('lib/greet');
    expect(await runHello(dir)).toContain('Hi, world!');

    // Put back: still watched (a failed source keeps the record of what it read), so it rebuilds.
    await writeFile(join(dir, 'lib/greet.ts'), greeting('Welcome back'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ lib\/greet\.ts: 1 built, 0 unchanged, 0 failed/);
    expect(await runHello(dir)).toContain('Welcome back, world!');
    expect(await watcher.stop()).toBe(0);
  });

  it('rebuilds when an MCP client file appears in its own folder (.vscode/mcp.json, .cursor/mcp.json)', async () => {
    const { dir } = await makeProject({}, { nodeModules: true });
    expect((await runCli(dir, ['init'])).code).toBe(0);
    watcher = startWatch(dir);
    await watcher.nextLine(/^Watching for changes/);
    await mkdir(join(dir, '.vscode'));
    const server = (file: string) => ({ command: process.execPath, args: [memoryServer], env: { MEMORY_FILE_PATH: join(dir, file) } });
    // VS Code's shape (`servers`), with a comment: read as written, and built as `mcp-memory`.
    await writeFile(join(dir, '.vscode/mcp.json'), `// VS Code\n${JSON.stringify({ servers: { memory: server('a.jsonl') } })}\n`);
    // (the folder's own creation may be a rebuild line of its own first)
    expect(await watcher.nextLine(/^[↻✗] \S+ \.vscode\/mcp\.json/)).toMatch(/^↻ \S+ \.vscode\/mcp\.json: 1 built/);
    await mkdir(join(dir, '.cursor'));
    await writeFile(join(dir, '.cursor/mcp.json'), JSON.stringify({ mcpServers: { notes: server('b.jsonl') } }));
    expect(await watcher.nextLine(/^[↻✗] \S+ \.cursor\/mcp\.json/)).toMatch(/^↻ \S+ \.cursor\/mcp\.json: 1 built/);
    const list = await runCli(dir, ['capabilities', 'list', '--json']);
    expect(list.stdout).toContain('mcp-memory');
    expect(list.stdout).toContain('mcp-notes');
    expect(await watcher.stop()).toBe(0);
  });
});
