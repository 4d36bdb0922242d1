import { fileURLToPath } from 'node:url';

/** Node arguments that run a workspace TypeScript file in a child process (isolated-vm needs `--no-node-snapshot`). */
export function tsNodeArgs(file: string): string[] {
  return [
    '--no-node-snapshot',
    '--conditions=@agent-spaces/source',
    '--import',
    fileURLToPath(new URL('./register.mjs', import.meta.url)),
    file,
  ];
}
