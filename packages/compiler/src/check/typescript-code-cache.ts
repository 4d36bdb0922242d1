import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type ts from 'typescript';

/** TypeScript, loaded by a typecheck worker, and {@link saveCodeCache} for after its first check. */
export interface LoadedTypeScript {
  typescript: typeof ts;
  /** Whether V8 took the code cache (`used`), refused it (`rejected`) or found none (`none`). */
  codeCache: 'used' | 'rejected' | 'none';
  /**
   * Writes V8's code for TypeScript (with the functions the checks so far compiled) to `node_modules/.cache/`, when the
   * cache was missing or V8 refused it: the next worker loads and checks without compiling them again. Once per load.
   */
  saveCodeCache(): void;
}

/**
 * Loads the installed `typescript` package as `require` would, compiled with V8's code cache from an earlier worker
 * when there is one (Node 20 has no `module.enableCompileCache`). The cache sits in the `node_modules/.cache/` beside
 * the package, as trusted as the package itself; its name holds TypeScript's and Node's versions, and V8 checks the
 * source and its own flags, refusing a cache that does not fit (then TypeScript compiles as usual). `cacheDir` replaces that folder (tests).
 */
export function loadTypeScript(cacheDir?: string): LoadedTypeScript {
  const require = createRequire(import.meta.url);
  const file = require.resolve('typescript');
  const source = readFileSync(file, 'utf8');
  const { version } = require('typescript/package.json') as { version: string };
  const cacheFile = join(cacheDir ?? join(dirname(file), '../../.cache/agent-spaces-compiler'), `typescript-${version}-node${process.version}-${process.arch}.v8`);
  const cachedData = readOptional(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as typeof ts };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  const codeCache = cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';
  let save = codeCache !== 'used';
  return {
    typescript: module.exports,
    codeCache,
    saveCodeCache() {
      if (!save) return;
      save = false;
      try {
        mkdirSync(dirname(cacheFile), { recursive: true });
        const partial = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
      } catch {
        // A read-only node_modules: workers compile TypeScript as usual.
      }
    },
  };
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
