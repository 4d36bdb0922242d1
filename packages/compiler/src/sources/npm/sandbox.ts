/**
 * A `sandbox`-mode package bundled with esbuild into one ES module the isolate runs as `@capabilities/<id>`: no
 * imports left, no Node built-ins (a package that needs one is refused, naming the built-in and the file importing it),
 * no file read outside the package's folder and those of its declared dependencies (`confine.ts`).
 */
import { isBuiltin } from 'node:module';
import { relative } from 'node:path';
import type { Plugin } from 'esbuild';
import { toPosix } from '../../inputs.js';
import { bundleText, entryPath, type Bundle } from './bundle-text.js';
import { confineReads, packageRoots, type ReadScope } from './confine.js';
import type { NpmSource } from './config.js';

/**
 * Bundles the named exports of the package installed in `dir` (only `exports` when given), resolved from `rootDir`,
 * for the isolate. It may read only files of its own folder and of its declared dependencies' folders.
 */
export async function bundleForSandbox(source: NpmSource, dir: string, rootDir: string, label: string): Promise<Bundle> {
  const { package: pkg, exports } = source;
  const specifier = JSON.stringify(source.dir ?? pkg);
  const contents = exports ? `export { ${exports.join(', ')} } from ${specifier};\n` : `export * from ${specifier};\n`;
  const scope: ReadScope = {
    roots: await packageRoots(dir),
    packages: true,
    rule: `a sandbox package reads only the files of its own folder and of the packages it declares as dependencies`,
  };
  return bundleForIsolate({ contents, rootDir, label, owner: pkg, scope });
}

/** What {@link bundleForIsolate} bundles. */
export interface BundleRequest {
  /** The entry module's source (JavaScript or, with `loader: 'ts'`, TypeScript). */
  contents: string;
  /** Project folder: files are named relative to it. */
  rootDir: string;
  /** Folder the entry's imports are resolved from (default `rootDir`). */
  resolveDir?: string;
  /** Names the entry in diagnostics (`file`): its path relative to `rootDir`. */
  label: string;
  /** Names the code in refusals (`<owner> cannot run in the sandbox`, `<owner> may not read …`). */
  owner: string;
  /** The files it may read. */
  scope: ReadScope;
  loader?: 'js' | 'ts';
  /** Imports left as they are, for the isolate to resolve (`@capabilities/*`). */
  external?: string[];
  /** Plugins that run before the bundler's own (modules given as text). */
  plugins?: Plugin[];
}

/**
 * Bundles `contents` and what it imports into one ES module for the isolate (ES2022, no platform): the one bundler path
 * of sandbox code. It reads no file outside `scope` (`IMPORT_REFUSED`) and imports no Node built-in.
 * `process.env.NODE_ENV` is `"production"`, as bundlers for browsers set it.
 */
export async function bundleForIsolate(request: BundleRequest): Promise<Bundle> {
  const { contents, rootDir, label, owner } = request;
  const entry = { contents, loader: request.loader ?? 'js', rootDir, label, ...(request.resolveDir ? { resolveDir: request.resolveDir } : {}) };
  const refuseBuiltins: Plugin = {
    name: 'refuse-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        const importer = args.importer === entryPath(entry) ? label : toPosix(relative(rootDir, args.importer));
        return {
          errors: [
            {
              text: `${owner} cannot run in the sandbox: ${importer} imports the Node built-in '${args.path}' (a sandbox package must be pure: no Node built-ins, no I/O); use mode: 'host' to run it on the host`,
            },
          ],
        };
      });
    },
  };
  const external = request.external ?? [];
  const confine = confineReads(request.scope, { owner, rootDir, entry: { path: entryPath(entry), label }, external });
  return bundleText(entry, {
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['import', 'module', 'default'],
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [...(request.plugins ?? []), refuseBuiltins, confine],
    ...(external.length > 0 ? { external } : {}),
  });
}
