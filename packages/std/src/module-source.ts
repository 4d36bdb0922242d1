import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BRIDGE_MODULE } from '@agent-spaces/capabilities';

/** Bump when the esbuild options below change, so cached bundles are rebuilt. */
const BUILD_VERSION = '2';
const CACHE_PREFIX = 'std-module-';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
/** `src/sandbox/*.ts` when running from source, `dist/sandbox/*.js` when built. */
const sandboxDir = join(here, 'sandbox');
const sourceExtension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/**
 * Bundles `src/sandbox/` into one ES module (importing `call` from `agent-spaces:bridge`) with esbuild. The bundle is
 * cached in `node_modules/.cache/agent-spaces/`, keyed by a hash of the sandbox sources and the esbuild version, so
 * only the first process after a change pays for esbuild; without a writable cache it is rebuilt in memory.
 */
export function buildStdModuleSource(): string {
  const files = readdirSync(sandboxDir)
    .filter((name) => name.endsWith(sourceExtension) && !name.endsWith('.d.ts'))
    .sort();
  const hash = createHash('sha256').update(`${BUILD_VERSION}\0${esbuildVersion()}\0`);
  for (const name of files) hash.update(`${name}\0`).update(readFileSync(join(sandboxDir, name))).update('\0');
  const key = hash.digest('hex').slice(0, 16);

  const cache = findCacheDir();
  const cached = cache && readIfExists(join(cache, `${CACHE_PREFIX}${key}.js`));
  if (cached) return cached;
  const source = bundle(join(sandboxDir, `index${sourceExtension}`));
  if (cache) writeCache(cache, key, source);
  return source;
}

function bundle(entry: string): string {
  const esbuild = require('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [entry],
    absWorkingDir: here,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: [BRIDGE_MODULE],
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${entry}`);
  return output.text;
}

function esbuildVersion(): string {
  const main = require.resolve('esbuild');
  return (JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function findCacheDir(): string | undefined {
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules', '.cache', 'agent-spaces');
    if (dirname(dir) === dir) return undefined;
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, key: string, source: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${CACHE_PREFIX}${key}.js`);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, source);
    renameSync(temp, file);
    for (const name of readdirSync(dir)) {
      if (name.startsWith(CACHE_PREFIX) && name.endsWith('.js') && !name.includes(key)) rmSync(join(dir, name), { force: true });
    }
  } catch {
    // A read-only install still works: the bundle is simply rebuilt by the next process.
  }
}
