import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_BIN } from '../../../../test/fixtures/cli.js';

/** A running `capabilities build --watch`: its process, a way to wait for its next matching line, and to stop it. */
export interface WatchProcess {
  child: ChildProcess;
  /** The first stderr line after the ones already returned that matches; fails with the output so far when the command exits. */
  nextLine(match: RegExp): Promise<string>;
  /** Every stderr line so far. */
  lines(): string[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `agent-spaces capabilities build --watch [...flags]` in `cwd`, started with the flag the bin needs (no re-exec to outlive). */
export function startWatch(cwd: string, flags: string[] = []): WatchProcess {
  const child = spawn(process.execPath, ['--no-node-snapshot', CLI_BIN, 'capabilities', 'build', '--watch', ...flags], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let seen = 0;
  const waiters: (() => void)[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    child,
    async nextLine(match) {
      for (;;) {
        const lines = text.split('\n');
        const index = lines.findIndex((line, i) => i >= seen && i < lines.length - 1 && match.test(line));
        if (index >= 0) {
          seen = index + 1;
          return lines[index]!;
        }
        if (child.exitCode !== null) throw new Error(`watch exited ${child.exitCode}:\n${text}`);
        await Promise.race([new Promise<void>((wake) => waiters.push(wake)), exited]);
      }
    },
    lines: () => text.split('\n'),
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
