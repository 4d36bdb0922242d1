import { mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { isBuiltin } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';
import type { PackageDependency } from '@agent-spaces/capabilities';

/** One TypeScript/JavaScript entry bundled into a single ES module, with the local files it was built from. */
export interface BundledModule {
  /** ES module source. */
  code: string;
  /**
   * Absolute paths of every local file esbuild read (for change detection); of a bundled package, only its
   * `package.json` (a new version changes it).
   */
  inputs: string[];
  /** The packages bundled into `code`, by name, with their versions (none when packages stay external). */
  dependencies: PackageDependency[];
}

/** Leaves Node built-ins and native addons (`.node` files, by absolute path) out of a bundle that bundles packages. */
const externalBuiltinsAndAddons: Plugin = {
  name: 'external-builtins-and-addons',
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ path }) => (isBuiltin(path) ? { path, external: true } : undefined));
    build.onResolve({ filter: /\.node$/ }, async ({ path, kind, resolveDir, pluginData }) => {
      if (pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(path, { kind, resolveDir, pluginData: RESOLVING });
      return resolved.errors.length > 0 ? { errors: resolved.errors } : { path: resolved.path, external: true };
    });
  },
};

/** Import paths that may name a package (not `./x` or `/x`); esbuild filters are Go regular expressions. */
const BARE = /^[^./]/;
const WINDOWS_PATH = /^[a-zA-Z]:[\\/]/;
const RESOLVING = Symbol('resolving');

/** Leaves every package import out of the bundle, rewritten to the absolute path esbuild resolves it to. */
const externalPackagesByPath: Plugin = {
  name: 'external-packages-by-path',
  setup(build) {
    build.onResolve({ filter: BARE }, async ({ path, kind, resolveDir, pluginData }) => {
      if (pluginData === RESOLVING || WINDOWS_PATH.test(path)) return undefined;
      if (isBuiltin(path)) return { path, external: true };
      const resolved = await build.resolve(path, { kind, resolveDir, pluginData: RESOLVING });
      return resolved.errors.length > 0 ? { errors: resolved.errors } : { path: resolved.path, external: true };
    });
  },
};

/** esbuild options of every module bundled for Node 20 (ESM). */
const NODE_OPTIONS = { bundle: true, platform: 'node', format: 'esm', target: 'node20' } satisfies BuildOptions;

/**
 * esbuild options of a host module that bundles its packages (so it runs wherever it is moved): Node 20 ESM, Node
 * built-ins and native addons (`.node`) left as imports, and a `require` for bundled CommonJS that requires built-ins.
 */
export const HOST_BUNDLE_OPTIONS = {
  ...NODE_OPTIONS,
  plugins: [externalBuiltinsAndAddons],
  // A linked package (a workspace) keeps its node_modules path, so it is recognised as a package, not a project file.
  preserveSymlinks: true,
  banner: { js: "import { createRequire as __agentSpacesRequire } from 'node:module';\nconst require = __agentSpacesRequire(import.meta.url);" },
} satisfies BuildOptions;

/**
 * Bundles `file` with esbuild for Node 20 (ESM). With `packages: 'bundle'` (host modules) the packages it imports are
 * bundled too, so the module runs wherever it is moved, and listed in `dependencies`; Node built-ins and native
 * addons (`.node`) stay imports. With `'external'` (the default: a config file, imported once where it is) packages
 * stay external, resolved from `file`'s folder to absolute paths. Throws esbuild's `BuildFailure` when the file
 * cannot be read or parsed; see {@link formatBuildError}.
 */
export async function bundleModule(file: string, options: { packages?: 'bundle' | 'external' } = {}): Promise<BundledModule> {
  const { build } = await import('esbuild');
  const absWorkingDir = resolve(file, '..');
  const result = await build({
    entryPoints: [file],
    absWorkingDir,
    ...(options.packages === 'bundle' ? HOST_BUNDLE_OPTIONS : { ...NODE_OPTIONS, plugins: [externalPackagesByPath] }),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles?.[0]?.text ?? '';
  const read = Object.keys(result.metafile?.inputs ?? {})
    .filter((input) => !input.includes(':') || /^[a-zA-Z]:[\\/]/.test(input))
    .map((input) => resolve(absWorkingDir, input));
  const manifests = [...new Set(read.map(packageManifestOf).filter((m): m is string => m !== undefined))];
  const inputs = [...read.filter((input) => packageManifestOf(input) === undefined), ...manifests];
  return { code, inputs, dependencies: manifests.map(readDependency).sort((a, b) => (a.name < b.name ? -1 : 1)) };
}

/** The `package.json` of the package a file inside `node_modules` belongs to; undefined for a project file. */
function packageManifestOf(file: string): string | undefined {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return m ? join(m[1]!, 'package.json') : undefined;
}

function readDependency(manifest: string): PackageDependency {
  try {
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
    return { name: String(json.name), version: typeof json.version === 'string' ? json.version : '0.0.0' };
  } catch {
    return { name: basename(dirname(manifest)), version: 'unknown' };
  }
}

/**
 * Writes `code` to a uniquely named `.mjs` file in `dir` (so bare imports resolve from the project's node_modules),
 * named after `name`, runs `use` on its path and deletes the file. Returns what `use` returns.
 */
export async function withCodeFile<T>(code: string, dir: string, name: string, use: (file: string) => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${basename(name, extname(name))}.${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, code);
  try {
    return await use(file);
  } finally {
    await rm(file, { force: true });
  }
}

/** Imports `code` from a file in `dir` (see {@link withCodeFile}). Returns the module namespace; throws what the module throws. */
export function importCode(code: string, dir: string, name: string): Promise<Record<string, unknown>> {
  return withCodeFile(code, dir, name, (file) => import(/* @vite-ignore */ `${pathToFileURL(file).href}?t=${Date.now()}`) as Promise<Record<string, unknown>>);
}

/** One line per esbuild error (`file:line:column: text`), or the error's message for anything else. */
export function formatBuildError(error: unknown): string {
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    return errors
      .map((e: { text?: string; location?: { file: string; line: number; column: number } | null }) =>
        e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : String(e.text),
      )
      .join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}
