import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/** The prelude script and the `agent-spaces:bridge` module source, bundled from `./prelude/`. */
export interface PreludeSources {
  /** Classic script (IIFE, strict) run in every context before agent code. */
  prelude: string;
  /** ES module source of `agent-spaces:bridge`. */
  bridge: string;
}

let bundled: Promise<PreludeSources> | undefined;

/**
 * Bundles `src/prelude/index.ts` and `src/prelude/bridge.ts` (or their compiled `.js` in `dist/`) with esbuild on
 * first use; later calls in the same process get the cached result.
 */
export function preludeSources(): Promise<PreludeSources> {
  bundled ??= bundleAll().catch((error: unknown) => {
    bundled = undefined;
    throw new AgentSpacesError('INTERNAL', `Cannot bundle the sandbox prelude: ${String(error)}`, undefined, { cause: error });
  });
  return bundled;
}

async function bundleAll(): Promise<PreludeSources> {
  const { build } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const entry = (name: string): string => {
    const ts = fileURLToPath(new URL(`./prelude/${name}.ts`, import.meta.url));
    return existsSync(ts) ? ts : fileURLToPath(new URL(`./prelude/${name}.js`, import.meta.url));
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
