import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { moduleEntry } from '@agent-spaces/capabilities';

/**
 * Path of the typecheck worker's entry: the built bundle beside this module (`npm run build` writes
 * `dist/check-worker.bundle.js`), else (running from the TypeScript sources) `./check-worker.ts` bundled on first use
 * into `node_modules/.cache/` of this package, where its dependencies resolve.
 */
export const checkWorkerEntry = moduleEntry({
  built: new URL('./check-worker.bundle.js', import.meta.url),
  cacheDir: new URL('../../node_modules/.cache/agent-spaces-compiler/', import.meta.url),
  name: 'check-worker',
  bundle: bundleWorker,
});

async function bundleWorker(): Promise<string> {
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
  return result.outputFiles[0]!.text;
}
