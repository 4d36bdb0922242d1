import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { writeCacheModule } from '@agent-spaces/capabilities';

/** The typecheck worker's bundle in `dist/`, beside the package's bundle (`npm run build` writes it). */
const BUILT_WORKER = './check-worker.bundle.js';

let entry: Promise<string> | undefined;

/**
 * Path of the typecheck worker's entry: the built bundle beside this module, else (running from the TypeScript
 * sources) `./check-worker.ts` bundled on first use into `node_modules/.cache/` of this package, where its
 * dependencies resolve.
 */
export function checkWorkerEntry(): Promise<string> {
  entry ??= locate().catch((error: unknown) => {
    entry = undefined;
    throw error;
  });
  return entry;
}

async function locate(): Promise<string> {
  const built = new URL(BUILT_WORKER, import.meta.url);
  if (existsSync(built)) return fileURLToPath(built);
  const { build } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./check-worker.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    external: ['typescript'],
    conditions: ['@agent-spaces/source'],
  });
  const dir = fileURLToPath(new URL('../../node_modules/.cache/agent-spaces-compiler/', import.meta.url));
  return writeCacheModule(dir, 'check-worker', result.outputFiles[0]!.text);
}
