import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig } from '../src/index.js';

/** Test helpers: how to start the official MCP servers installed as root devDependencies. */

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Path of an official server's entry script (`server-everything` -> `.../dist/index.js`). */
function serverScript(pkg: string): string {
  return join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');
}

/** Path of a fixture script of this folder. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** stdio configs of the four official servers; filesystem and memory work inside `dir`. */
export function officialServers(dir: string): Record<'everything' | 'filesystem' | 'memory' | 'thinking', McpStdioServerConfig> {
  return {
    everything: { command: process.execPath, args: [serverScript('server-everything'), 'stdio'] },
    filesystem: { command: process.execPath, args: [serverScript('server-filesystem'), dir] },
    memory: { command: process.execPath, args: [serverScript('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    thinking: { command: process.execPath, args: [serverScript('server-sequential-thinking')] },
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** server-everything started over HTTP (`streamableHttp` or `sse`) on a free port; resolves once it listens. */
export async function startHttpEverything(mode: 'streamableHttp' | 'sse'): Promise<{ port: number; process: ChildProcess; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript('server-everything'), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${output}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${output}`)));
  });
  return { port, process: child, stop: () => child.kill() };
}
