import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { isBuiltin } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** One TypeScript/JavaScript entry bundled into a single ES module, with the local files it was built from. */
export interface BundledModule {
  /** ES module source; packages are not bundled but imported by absolute path, so the module runs from any folder. */
  code: string;
  /** Absolute paths of every local file esbuild read (for change detection). */
  inputs: string[];
}

/**
 * Bundles `file` with esbuild for Node 20 (ESM). Packages stay external, resolved from `file`'s folder to absolute
 * paths: the bundle is imported from the output folder, which need not sit inside the project's node_modules tree.
 * Throws esbuild's `BuildFailure` when the file cannot be read or parsed; see {@link formatBuildError}.
 */
export async function bundleModule(file: string): Promise<BundledModule> {
  const { build } = await import('esbuild');
  const absWorkingDir = resolve(file, '..');
  const result = await build({
    entryPoints: [file],
    absWorkingDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externalPackagesByPath],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles?.[0]?.text ?? '';
  const inputs = Object.keys(result.metafile?.inputs ?? {})
    .filter((input) => !input.includes(':') || /^[a-zA-Z]:[\\/]/.test(input))
    .map((input) => resolve(absWorkingDir, input));
  return { code, inputs };
}

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

/**
 * Writes `code` to a uniquely named `.mjs` file in `dir` (so bare imports resolve from the project's
 * node_modules), imports it and deletes the file. Returns the module namespace; throws what the module throws.
 */
export async function importCode(code: string, dir: string, name: string): Promise<Record<string, unknown>> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${basename(name, extname(name))}.${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, code);
  try {
    const namespace: unknown = await import(/* @vite-ignore */ `${pathToFileURL(file).href}?t=${Date.now()}`);
    return namespace as Record<string, unknown>;
  } finally {
    await rm(file, { force: true });
  }
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
