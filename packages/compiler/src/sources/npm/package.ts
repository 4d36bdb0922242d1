/** Finds an installed npm package from the project folder: its folder, `package.json`, version and type declarations. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';

/** An installed package. */
export interface InstalledPackage {
  name: string;
  version: string;
  description?: string;
  /** Absolute folder of the package. */
  dir: string;
  /** Absolute path of its `package.json`. */
  manifest: string;
  /** Absolute path of its declarations entry (`.d.ts`), when it has one. */
  types?: string;
}

/**
 * The package in folder `source.dir`, or the package `source.package` as Node resolves it from `rootDir`: the first
 * `node_modules/<name>` found walking up. Undefined when there is none.
 */
export async function findPackage(source: { package: string; dir?: string }, rootDir: string): Promise<InstalledPackage | undefined> {
  if (source.dir) return existsSync(join(source.dir, 'package.json')) ? readPackage(join(source.dir, 'package.json')) : undefined;
  const name = source.package;
  for (let dir = resolve(rootDir); ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return readPackage(manifest);
    if (dirname(dir) === dir) return undefined;
  }
}

async function readPackage(manifest: string): Promise<InstalledPackage> {
  const json: unknown = JSON.parse(await readFile(manifest, 'utf8'));
  const pkg = isRecord(json) ? json : {};
  const dir = dirname(manifest);
  const types = typesEntry(pkg, dir);
  return {
    name: String(pkg.name),
    version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
    ...(typeof pkg.description === 'string' ? { description: pkg.description } : {}),
    dir,
    manifest,
    ...(types ? { types } : {}),
  };
}

/**
 * The declarations entry of a package: `exports["."]`'s `types` condition (also under `import`), then `types` /
 * `typings`, then the `.d.ts` beside `module` / `main`, then `index.d.ts`; the first that exists.
 */
function typesEntry(pkg: Record<string, unknown>, dir: string): string | undefined {
  const root = isRecord(pkg.exports) && '.' in pkg.exports ? pkg.exports['.'] : pkg.exports;
  const conditions = isRecord(root) ? [root.types, isRecord(root.import) ? root.import.types : undefined] : [];
  const declared = [...conditions, pkg.types, pkg.typings].filter((entry): entry is string => typeof entry === 'string');
  const beside = [pkg.module, pkg.main, typeof root === 'string' ? root : undefined]
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => (/\.[cm]?js$/.test(entry) ? entry.replace(/\.([cm]?)js$/, '.d.$1ts') : `${entry}.d.ts`));
  return [...declared, ...beside, 'index.d.ts'].map((entry) => join(dir, entry)).find((file) => existsSync(file));
}
