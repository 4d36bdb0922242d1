/**
 * What a bundle for the isolate may read (docs/definition-formats.md, "What a sandbox bundle may read"): an esbuild
 * plugin that refuses every file outside the bundle's read scope with `IMPORT_REFUSED`, naming the import. Paths are
 * compared by real path (a symlink that leads out is out), before an import is resolved (an absolute path, `..`), after
 * (a package's `exports` or `main`), and again when any file is loaded, whatever its loader (an import attribute
 * `text` / `bytes` / `json`, a glob `import()` that esbuild expands without resolving).
 */
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isBuiltin } from 'node:module';
import { isRecord } from '@agent-spaces/capabilities';
import type { OnResolveArgs, PartialMessage, Plugin } from 'esbuild';
import { toPosix } from '../../inputs.js';
import { isPackageName } from './config.js';

/** The files a bundle for the isolate may read. */
export interface ReadScope {
  /** Folders whose files may be read (absolute; compared by real path). None: no file but the entry. */
  roots: readonly string[];
  /** Whether a bare import (`pkg`) is resolved at all (to a file that must still lie under `roots`). */
  packages: boolean;
  /** What may be read, ending the refusal (`a skill imports only …`). */
  rule: string;
}

/** Where the plugin runs: names for its messages and the imports it leaves to the isolate. */
export interface ConfineContext {
  /** Names the code (`skill "x"`, `the package y`). */
  owner: string;
  /** Project folder: files are named relative to it. */
  rootDir: string;
  /** Absolute path esbuild gives the entry (its `resolveDir` joined with its `sourcefile`), and its name. */
  entry: { path: string; label: string };
  /** Imports left as they are (`@capabilities/*`): never resolved here. */
  external: readonly string[];
}

/** The `detail` of an esbuild message that refuses a read; `bundleText` reports it as `IMPORT_REFUSED`. */
export const IMPORT_REFUSED = 'IMPORT_REFUSED';
const RESOLVING = Symbol('confine-resolving');
const RELATIVE = /^\.\.?(?:[\\/]|$)/;

/** The esbuild plugin that keeps a bundle's reads inside `scope` (see the module comment). */
export function confineReads(scope: ReadScope, context: ConfineContext): Plugin {
  const roots = Promise.all(scope.roots.map(realPathOf));
  const inside = async (file: string) => (await roots).some((root) => file === root || file.startsWith(root.endsWith(sep) ? root : root + sep));
  const name = (file: string) => (file === context.entry.path ? context.entry.label : shown(file, context.rootDir));
  /** Refuses import `args`: "<owner> may <what>: <importer> imports '<path>'; <rule>". */
  const refuse = (args: OnResolveArgs, what: string) => {
    const attributes = Object.keys(args.with).length > 0 ? ` with ${JSON.stringify(args.with)}` : '';
    const text = `${context.owner} may not ${what}: ${name(args.importer)} imports '${args.path}'${attributes}; ${scope.rule}`;
    return { errors: [{ text, detail: IMPORT_REFUSED }] };
  };
  return {
    name: 'confine-reads',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === RESOLVING || isBuiltin(args.path) || isExternal(args.path, context.external)) return undefined;
        const bare = !isAbsolute(args.path) && !RELATIVE.test(args.path);
        if (bare && !scope.packages) return refuse(args, `import the package '${args.path}'`);
        if (!bare) {
          // Named as written: the real path of a symlink that leads out is none of the importer's business.
          const target = resolve(args.resolveDir, args.path);
          if (!(await inside(await realPathOf(target)))) return refuse(args, `read ${shown(target, context.rootDir)}`);
        }
        const { kind, importer, resolveDir, namespace } = args;
        const resolved = await build.resolve(args.path, { kind, importer, resolveDir, namespace, with: args.with, pluginData: RESOLVING });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external || resolved.namespace !== 'file') return { path: resolved.path, external: resolved.external, namespace: resolved.namespace };
        const real = await realPathOf(resolved.path);
        return (await inside(real)) ? { path: real, sideEffects: resolved.sideEffects } : refuse(args, `read ${shown(real, context.rootDir)}`);
      });
      // Reached without onResolve by a glob import (`import(\`./x/${name}\`)`); the file is not named, so a refusal
      // does not list a folder it may not read.
      build.onLoad({ filter: /.*/, namespace: 'file' }, async (args) => {
        if (await inside(await realPathOf(args.path))) return undefined;
        const text = `${context.owner} may not read a file that an import pattern (a glob \`import()\`) of ${context.entry.label} reaches; ${scope.rule}`;
        return { errors: [{ text, detail: IMPORT_REFUSED } satisfies PartialMessage] };
      });
    },
  };
}

/** True when `path` is one of the `external` imports (`@capabilities/*` ends in a wildcard). */
function isExternal(path: string, external: readonly string[]): boolean {
  return external.some((e) => (e.endsWith('*') ? path.startsWith(e.slice(0, -1)) : path === e));
}

/** A file as a message shows it: relative to the project when inside it, else absolute. */
function shown(file: string, rootDir: string): string {
  const rel = relative(rootDir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? toPosix(rel) : toPosix(file);
}

/** The real path of `path`: of its nearest existing ancestor when it does not exist, with the rest appended. */
async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await realPathOf(parent), basename(path));
  }
}

/**
 * The folders a package at `dir` may read from: its own and, transitively, those of the packages it declares
 * (`dependencies`, `optionalDependencies`, `peerDependencies`) as Node finds them from its real folder.
 */
export async function packageRoots(dir: string): Promise<string[]> {
  const roots = new Set<string>();
  const pending = [await realPathOf(dir)];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (roots.has(next)) continue;
    roots.add(next);
    for (const name of await declaredDependencies(next)) {
      const found = findInstalled(name, next);
      if (found) pending.push(await realPathOf(found));
    }
  }
  return [...roots];
}

async function declaredDependencies(dir: string): Promise<string[]> {
  const json: unknown = await readFile(join(dir, 'package.json'), 'utf8').then(JSON.parse, () => undefined);
  if (!isRecord(json)) return [];
  const fields = [json.dependencies, json.optionalDependencies, json.peerDependencies];
  return [...new Set(fields.flatMap((field) => (isRecord(field) ? Object.keys(field).filter(isPackageName) : [])))];
}

/** The folder of package `name` as Node resolves it from `dir`: the first `node_modules/<name>` walking up. */
function findInstalled(name: string, dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(at) === at) return undefined;
  }
}
