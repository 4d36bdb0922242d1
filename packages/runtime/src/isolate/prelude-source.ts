import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/** The prelude script and the `agent-spaces:bridge` module source, bundled from `../prelude/`. */
export interface PreludeSources {
  /** Classic script (IIFE, strict) run in every context before agent code. */
  prelude: string;
  /** ES module source of `agent-spaces:bridge`. */
  bridge: string;
}

/** Where `npm run build` writes {@link bundlePrelude}'s result, beside the package's bundle in `dist/`. */
export const PRELUDE_FILE = 'prelude.json';

let bundled: Promise<PreludeSources> | undefined;

/**
 * The prelude sources: read from {@link PRELUDE_FILE} when the build wrote one beside this module, else (running
 * from the TypeScript sources) bundled on first use. Later calls in the same process get the cached result.
 */
export function preludeSources(): Promise<PreludeSources> {
  bundled ??= load().catch((error: unknown) => {
    bundled = undefined;
    throw new AgentSpacesError('INTERNAL', `Cannot load the sandbox prelude: ${String(error)}`, undefined, { cause: error });
  });
  return bundled;
}

async function load(): Promise<PreludeSources> {
  const built = new URL(`./${PRELUDE_FILE}`, import.meta.url);
  return existsSync(built) ? (JSON.parse(readFileSync(built, 'utf8')) as PreludeSources) : bundlePrelude();
}

/** Bundles `src/prelude/index.ts` and `src/prelude/bridge.ts` (or their compiled `.js` in `dist/`) with esbuild. */
export async function bundlePrelude(): Promise<PreludeSources> {
  const { build } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const entry = (name: string): string => {
    const ts = fileURLToPath(new URL(`../prelude/${name}.ts`, import.meta.url));
    return existsSync(ts) ? ts : fileURLToPath(new URL(`../prelude/${name}.js`, import.meta.url));
  };
  const bundle = async (name: string, format: 'iife' | 'esm'): Promise<string> => {
    const result = await build({
      entryPoints: [entry(name)],
      bundle: true,
      format,
      platform: 'neutral',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      // Strict mode keeps prelude frames opaque: V8 call sites of strict functions expose no function or receiver.
      banner: { js: '"use strict";' },
    });
    return result.outputFiles[0]!.text;
  };
  const [prelude, bridge] = await Promise.all([bundle('index', 'iife'), bundle('bridge', 'esm')]);
  return { prelude, bridge };
}
