import { spawn, type ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { tsNodeArgs } from './child.js';

const ENTRY = fileURLToPath(new URL('./serve-entry.ts', import.meta.url));

/** A client transport to `agent-spaces mcp serve --stdio` started as a real child process in `cwd` (stderr piped). */
export function stdioServe(cwd: string): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [...tsNodeArgs(ENTRY), JSON.stringify({ stdio: true })], cwd, stderr: 'pipe' });
}

/** `agent-spaces mcp serve --port 0` as a real child process in `cwd`, with everything it writes to stderr. */
export class HttpServe {
  readonly child: ChildProcess;
  stderr = '';

  /** Starts it with the option `values` (as the CLI parses them) and extra `env`. */
  constructor(cwd: string, values: Record<string, string | boolean>, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [...tsNodeArgs(ENTRY), JSON.stringify({ port: '0', ...values })], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** The MCP endpoint, once the server says it listens. */
  async url(): Promise<string> {
    const found = await vi.waitFor(
      () => {
        const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(this.stderr);
        if (!match) throw new Error(`mcp serve did not say where it listens yet; stderr: ${this.stderr}`);
        return match[0];
      },
      { timeout: 60_000, interval: 100 },
    );
    return found;
  }

  /**
   * Stops the server with SIGTERM and resolves with its exit code; one that has not exited 15 s later is killed
   * (SIGKILL) and resolves with null.
   */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(killer);
    }
  }
}
