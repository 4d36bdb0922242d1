/**
 * A `sandbox`-mode package bundled with esbuild into one ES module the isolate runs as `@capabilities/<id>`: no
 * imports left, no Node built-ins (a package that needs one is refused, naming the built-in and the file importing it).
 */
import { isBuiltin } from 'node:module';
import { relative } from 'node:path';
import type { Plugin } from 'esbuild';
import { toPosix } from '../../inputs.js';
import { bundleText, type Bundle } from './bundle-text.js';
import type { NpmSource } from './config.js';

/**
 * Bundles the named exports of the package (only `exports` when given), resolved from `rootDir`, for the isolate.
 */
export async function bundleForSandbox(source: NpmSource, rootDir: string, label: string): Promise<Bundle> {
  const { package: pkg, exports } = source;
  const specifier = JSON.stringify(source.dir ?? pkg);
  const contents = exports ? `export { ${exports.join(', ')} } from ${specifier};\n` : `export * from ${specifier};\n`;
  return bundleForIsolate({ contents, rootDir, label, owner: pkg });
}

/** What {@link bundleForIsolate} bundles. */
export interface BundleRequest {
  /** The entry module's source (JavaScript or, with `loader: 'ts'`, TypeScript). */
  contents: string;
  /** Folder imports are resolved from. */
  rootDir: string;
  /** Names the entry in diagnostics (`file`). */
  label: string;
  /** Names the code in the message refusing a Node built-in (`<owner> cannot run in the sandbox`). */
  owner: string;
  loader?: 'js' | 'ts';
  /** Imports left as they are, for the isolate to resolve (`@capabilities/*`). */
  external?: string[];
}

/**
 * Bundles `contents` and what it imports into one ES module for the isolate (ES2022, no platform): the one bundler path
 * of sandbox code. `process.env.NODE_ENV` is `"production"`, as bundlers for browsers set it.
 */
export async function bundleForIsolate(request: BundleRequest): Promise<Bundle> {
  const { contents, rootDir, label, owner } = request;
  const refuseBuiltins: Plugin = {
    name: 'refuse-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        const importer = args.importer === '<stdin>' || args.importer === '' ? owner : toPosix(relative(rootDir, args.importer));
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
  return bundleText(
    { contents, loader: request.loader ?? 'js', rootDir, label },
    {
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['import', 'module', 'default'],
      define: { 'process.env.NODE_ENV': '"production"' },
      plugins: [refuseBuiltins],
      ...(request.external ? { external: request.external } : {}),
    },
  );
}
