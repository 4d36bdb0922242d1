/**
 * The npm source: a package named in the config's `capabilities` becomes `@capabilities/<id>`, typed by its own
 * declarations. In `sandbox` mode (the default) the package is bundled into the isolate: its calls never leave the
 * sandbox, so the capability has no host functions. In `host` mode each of its functions is a capability function
 * that runs on the host (see `host.ts`). Either way its catalog lists its functions with their own signatures
 * (`catalog.ts`), so search finds them.
 */
import type ts from 'typescript';
import { CAPABILITY_FILES, CAPABILITY_PREFIX, type CapabilityCatalog, type CapabilityIR, type Diagnostic } from '@agent-spaces/capabilities';
import { stringLiteral } from '../../emit/escape.js';
import { identifier } from '../../ir/names.js';
import type { SourceContext, SourceResult } from '../types.js';
import { defaultId, type NpmSource } from './config.js';
import { packageDeclarations, type PackageDeclarations } from './declarations.js';
import { findPackage, type InstalledPackage } from './package.js';
import { npmCacheKey, readCachedNpmSource, writeCachedNpmSource } from './cache.js';
import { compilerVersion } from '../../build.js';
import { bundleForSandbox } from './sandbox.js';
import { hostPackage } from './host.js';
import { packageCatalog } from './catalog.js';
import { packageExports, valueExports, type ValueExports } from './exports.js';
import { sourcePrograms } from '../define-tool/program.js';

/** The label of a package's report entries and IR: `npm:<package>`, or `npm:<package> as <id>` under another name. */
export function npmLabel(source: NpmSource): string {
  return source.id === defaultId(source.package) ? `npm:${source.package}` : `npm:${source.package} as ${source.id}`;
}

/** Reads the package `source` names, installed in the project; reports problems as diagnostics, never throws. */
export async function readNpmSource(source: NpmSource, context: SourceContext): Promise<SourceResult> {
  const label = npmLabel(source);
  const fail = (code: Diagnostic['code'], message: string): SourceResult => ({
    capabilities: [],
    diagnostics: [{ code, severity: 'error', file: label, message }],
    inputs: [],
    hostModules: {},
  });
  const installed = await findPackage(source, context.rootDir);
  if (!installed) {
    return fail('SOURCE_NOT_FOUND', source.dir ? `${label}: ${source.dir} holds no package.json` : `${label}: the package is not installed in ${context.rootDir} (npm install ${source.package})`);
  }
  if (!installed.types) {
    return fail('INVALID_DEFINITION', `${label}: the package has no type declarations (.d.ts), so agent code using it could not be typechecked`);
  }
  const key = await npmCacheKey(source, installed, await compilerVersion());
  const cached = context.refresh ? undefined : await readCachedNpmSource(context.outDir, label, key);
  if (cached) return cached;
  const result = await readInstalled(source, installed as InstalledPackage & { types: string }, context, label);
  if (!result.diagnostics.some((d) => d.severity === 'error')) await writeCachedNpmSource(context.outDir, label, key, result);
  return result;
}

async function readInstalled(source: NpmSource, installed: InstalledPackage & { types: string }, context: SourceContext, label: string): Promise<SourceResult> {
  const declarations = await packageDeclarations(source.id, installed.dir, installed.types, label);
  const inputs = [installed.manifest, ...declarations.inputs];
  const base = {
    id: source.id,
    exportName: identifier(source.id),
    sourceName: source.package,
    ...(installed.description ? { description: installed.description } : {}),
    version: installed.version,
    source: { kind: 'npm' as const, file: label },
    config: {},
    package: { name: installed.name, version: installed.version, mode: source.mode },
  };
  if (source.mode === 'host') {
    const host = await hostPackage(source, installed, declarations, context.rootDir, label);
    const diagnostics = [...declarations.diagnostics, ...host.diagnostics];
    if (!host.ok) return { capabilities: [], diagnostics, inputs, hostModules: {} };
    const capability: CapabilityIR = {
      ...base,
      functions: host.functions,
      executor: { kind: 'module', module: CAPABILITY_FILES.host },
      module: { code: host.code, declarations: host.declarations, catalog: host.catalog },
    };
    return { capabilities: [capability], diagnostics, inputs, hostModules: { [source.id]: host.hostModule } };
  }
  const typescript = (await import('typescript')).default;
  const program = sourcePrograms(typescript).programFor(installed.types);
  const values = valueExports(typescript, program, installed.types);
  const bundle = await bundleForSandbox(source, installed.dir, context.rootDir, label, values);
  if (!bundle.ok) return { capabilities: [], diagnostics: bundle.diagnostics, inputs, hostModules: {} };
  const sandbox = sandboxCatalog(typescript, program, source, installed, label);
  const capability: CapabilityIR = {
    ...base,
    functions: [],
    executor: { kind: 'runtime' },
    module: { code: bundle.code, declarations: sandboxDeclarations(source, declarations, values), catalog: sandbox.catalog },
  };
  return { capabilities: [capability], diagnostics: [...declarations.diagnostics, ...sandbox.diagnostics], inputs, hostModules: {} };
}

/** The catalog of a sandbox-mode package: every function it exports (callbacks welcome: nothing crosses a bridge). */
function sandboxCatalog(
  typescript: typeof ts,
  program: ts.Program,
  source: NpmSource,
  installed: InstalledPackage & { types: string },
  label: string,
): { catalog: CapabilityCatalog; diagnostics: Diagnostic[] } {
  const exported = packageExports(typescript, program, installed.types, source.exports);
  const diagnostics: Diagnostic[] = exported
    ? []
    : [{ code: 'INVALID_DEFINITION', severity: 'warning', file: label, message: `${label}: its declarations are not a module; search finds none of its functions` }];
  return { catalog: packageCatalog(typescript, program, source, exported?.functions ?? [], installed.description), diagnostics };
}

/**
 * `@capabilities/<id>` re-exporting the package's entry (only `exports` when given), then the package's modules: its
 * default export too, and for declarations that say `export =` (CommonJS) that whole module, so `import x from` and
 * `import { named } from` type as for the package itself.
 */
function sandboxDeclarations(source: NpmSource, declarations: PackageDeclarations, values: ValueExports | undefined): string {
  const { entry } = declarations;
  let reexport: string;
  if (source.exports) reexport = `export { ${source.exports.join(', ')} } from ${entry};`;
  else if (values?.exportEquals) reexport = `import pkg = require(${entry});\n  export = pkg;`;
  else reexport = `export * from ${entry};${values?.hasDefault ? `\n  export { default } from ${entry};` : ''}`;
  return `declare module ${stringLiteral(CAPABILITY_PREFIX + source.id)} {\n  ${reexport}\n}\n${declarations.modules}`;
}
