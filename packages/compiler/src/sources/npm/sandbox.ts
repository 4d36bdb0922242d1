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
import type { ValueExports } from './exports.js';

/**
 * Bundles the named exports of the package installed in `dir` (only `exports` when given), resolved from `rootDir`,
 * for the isolate. It may read only files of its own folder and of its declared dependencies' folders. `values` (its
 * declared value exports) are named one by one, and the default export given, so a CommonJS package exports them
 * too (see {@link sandboxEntry}).
 */
export async function bundleForSandbox(source: NpmSource, dir: string, rootDir: string, label: string, values?: ValueExports): Promise<Bundle> {
  const { package: pkg } = source;
  const contents = sandboxEntry(source, values);
  const scope: ReadScope = {
    roots: await packageRoots(dir),
    packages: true,
    rule: `a sandbox package reads only the files of its own folder and of the packages it declares as dependencies`,
  };
  return bundleForIsolate({ contents, rootDir, label, owner: pkg, scope });
}

/**
 * The entry module of a sandbox-mode package. `export * from` alone exports nothing of a CommonJS package (its names
 * are only known when it runs), so every value its declarations export is also named from the module's namespace,
 * and `default` is its default (esbuild's interop: `module.exports.default` when the module sets `__esModule`, else
 * `module.exports` itself), as TypeScript types `import x from`. For an ES module that changes nothing. With
 * `exports`, only those names: a named re-export works for both kinds.
 * @example
 * sandboxEntry({ package: 'ms', id: 'ms', mode: 'sandbox' }, { names: [], hasDefault: true, exportEquals: true })
 * // 'import * as pkg from "ms";\nexport * from "ms";\nexport default pkg.default;\n'
 */
function sandboxEntry(source: NpmSource, values: ValueExports | undefined): string {
  const specifier = JSON.stringify(source.dir ?? source.package);
  if (source.exports) return `export { ${source.exports.join(', ')} } from ${specifier};\n`;
  const names = values?.names ?? [];
  const named = names.map((name, i) => `const v${i} = pkg[${JSON.stringify(name)}];\n`).join('') + (names.length > 0 ? `export { ${names.map((name, i) => `v${i} as ${name}`).join(', ')} };\n` : '');
  const fallback = values?.hasDefault ? 'export default pkg.default;\n' : '';
  return `import * as pkg from ${specifier};\nexport * from ${specifier};\n${named}${fallback}`;
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
