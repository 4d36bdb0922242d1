import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { moduleEntry } from '@agent-spaces/capabilities';
import { preludeSources } from '../../isolate/prelude-source.js';

/** Where `npm run build` writes {@link bundleChild}'s result, beside the package's bundle in `dist/`. */
export const CHILD_FILE = 'process-child.mjs';

/**
 * Path of the sandbox process's entry: {@link CHILD_FILE} when the build wrote one beside this module, else (running
 * from the TypeScript sources) bundled on first use into `node_modules/.cache/` of this package, where the bundle's
 * dependencies resolve. Later calls in the same process get the cached result.
 */
export const childEntry = moduleEntry({
  built: new URL(`./${CHILD_FILE}`, import.meta.url),
  cacheDir: new URL('../../../node_modules/.cache/agent-spaces-runtime/', import.meta.url),
  name: 'process-child',
  bundle: () => bundleChild(),
});

/**
 * Bundles the child's entry, `../child/main.ts` (or its compiled `.js` in `dist/`), and the isolate code it runs into
 * one ES module with esbuild; isolated-vm stays an import. The prelude is inlined, so the child reads no file to
 * start; the child side never imports a transpiler (lint's `arch/runtime-child`). From the sources, workspace packages
 * are bundled from theirs too (the `@agent-spaces/source` condition).
 */
export async function bundleChild(): Promise<string> {
  const { build } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const fromSources = import.meta.url.endsWith('.ts');
  const prelude = await preludeSources();
  const result = await build({
    entryPoints: [fileURLToPath(new URL(fromSources ? '../child/main.ts' : '../child/main.js', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    external: ['isolated-vm'],
    conditions: fromSources ? ['@agent-spaces/source'] : [],
    plugins: [
      {
        name: 'sandbox-process',
        setup(builder) {
          builder.onLoad({ filter: /[\\/]prelude-source\.[jt]s$/ }, () => ({
            contents: `export const preludeSources = async () => (${JSON.stringify(prelude)});`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}
