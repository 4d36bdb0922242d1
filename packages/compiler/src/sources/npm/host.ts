/**
 * A `host`-mode package: its functions run on the host, each call crossing the bridge (validation, policy, approval,
 * rate limits, audit) like any capability's. Agent code calls them with the package's own parameters; results are
 * promises. Three texts are generated: the sandbox module (positional arguments → one params object by parameter
 * name), its declarations (the package's own types, results wrapped in `Promise`), and `host.mjs`, the package
 * bundled with esbuild behind one export per function (params object → positional arguments).
 */
import { BRIDGE_MODULE, CAPABILITY_PREFIX, type CapabilityCatalog, type Diagnostic, type FunctionIR } from '@agent-spaces/capabilities';
import { HOST_BUNDLE_OPTIONS } from '../../bundle.js';
import { jsDoc, stringLiteral } from '../../emit/escape.js';
import { sourcePrograms } from '../define-tool/program.js';
import { bundleText, type Bundle } from './bundle-text.js';
import { packageCatalog } from './catalog.js';
import type { NpmSource } from './config.js';
import type { PackageDeclarations } from './declarations.js';
import { packageFunctions, type PackageFunction } from './host-types.js';
import type { InstalledPackage } from './package.js';

/** What a host-mode package becomes, or the problems that stopped it. */
export type HostPackage =
  | { ok: true; functions: FunctionIR[]; code: string; declarations: string; catalog: CapabilityCatalog; hostModule: string; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads the functions of the package `installed` (with a declarations entry) and generates its module, declarations,
 * catalog and host module.
 */
export async function hostPackage(
  source: NpmSource,
  installed: InstalledPackage & { types: string },
  declarations: PackageDeclarations,
  rootDir: string,
  label: string,
): Promise<HostPackage> {
  const typescript = (await import('typescript')).default;
  const program = sourcePrograms(typescript).programFor(installed.types);
  const { functions, diagnostics } = packageFunctions(typescript, program, installed.types, source.exports, label);
  if (diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics };
  if (functions.length === 0) {
    return { ok: false, diagnostics: [...diagnostics, { code: 'INVALID_DEFINITION', severity: 'error', file: label, message: `${label}: the package exports no function that can be called across the bridge` }] };
  }
  const host = await bundleHostModule(source.dir ?? source.package, functions, rootDir, label);
  if (!host.ok) return { ok: false, diagnostics: [...diagnostics, ...host.diagnostics] };
  return {
    ok: true,
    functions: functions.map((fn) => functionIR(fn)),
    code: proxyModule(source.id, functions),
    declarations: hostDeclarations(source.id, functions, declarations),
    catalog: packageCatalog(typescript, program, source, functions, installed.description),
    hostModule: host.code,
    diagnostics,
  };
}

function functionIR(fn: PackageFunction): FunctionIR {
  const required = fn.params.filter((p) => !p.optional).map((p) => p.name);
  return {
    name: fn.path,
    sourceName: fn.path,
    ...(fn.description ? { description: fn.description } : {}),
    parameters: {
      type: 'object',
      properties: Object.fromEntries(fn.params.map((p) => [p.name, p.schema])),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
  };
}

/** Top-level exports and the members of exported objects, grouped: `[['camelCase', fn], ['client', [['get', fn]]]]`. */
function grouped(functions: readonly PackageFunction[]): Map<string, PackageFunction | Map<string, PackageFunction>> {
  const groups = new Map<string, PackageFunction | Map<string, PackageFunction>>();
  for (const fn of functions) {
    const dot = fn.path.indexOf('.');
    if (dot === -1) {
      groups.set(fn.path, fn);
      continue;
    }
    const owner = fn.path.slice(0, dot);
    const members = groups.get(owner);
    const map = members instanceof Map ? members : new Map<string, PackageFunction>();
    map.set(fn.path.slice(dot + 1), fn);
    groups.set(owner, map);
  }
  return groups;
}

/** The sandbox module: each function packs its arguments into `{ <param>: value }` and calls the bridge. */
function proxyModule(id: string, functions: readonly PackageFunction[]): string {
  const call = (fn: PackageFunction) =>
    `(...args) => call(${stringLiteral(id)}, ${stringLiteral(fn.path)}, pack(${JSON.stringify(fn.params.map((p) => p.name))}, args))`;
  const lines = [
    `import { call } from '${BRIDGE_MODULE}';`,
    'const pack = (names, args) => Object.fromEntries(names.flatMap((name, i) => (args[i] === undefined ? [] : [[name, args[i]]])));',
  ];
  for (const [name, entry] of grouped(functions)) {
    if (entry instanceof Map) {
      const members = [...entry].map(([member, fn]) => `  ${stringLiteral(member)}: ${call(fn)},`);
      lines.push(`export const ${name} = Object.freeze({\n${members.join('\n')}\n});`);
    } else {
      lines.push(`export const ${name} = ${call(entry)};`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `@capabilities/<id>`: the package's types, and each function with its own parameters and a promised result. */
function hostDeclarations(id: string, functions: readonly PackageFunction[], declarations: PackageDeclarations): string {
  const signature = (access: string) => `(...args: Parameters<${access}>): Promise<Awaited<ReturnType<${access}>>>`;
  const access = (path: string) => `(typeof pkg)${path.split('.').map((part) => `[${stringLiteral(part)}]`).join('')}`;
  const doc = (fn: PackageFunction, indent: string) => jsDoc(fn.description ? [fn.description] : [], indent);
  const lines: string[] = [];
  for (const [name, entry] of grouped(functions)) {
    if (entry instanceof Map) {
      const members = [...entry].map(([member, fn]) => `${doc(fn, '    ')}    ${stringLiteral(member)}${signature(access(fn.path))};`);
      lines.push(`  export const ${name}: {\n${members.join('\n')}\n  };`);
    } else {
      lines.push(`${doc(entry, '  ')}  export function ${name}${signature(access(entry.path))};`);
    }
  }
  return (
    `declare module ${stringLiteral(CAPABILITY_PREFIX + id)} {\n  import type * as pkg from ${declarations.entry};\n  export type * from ${declarations.entry};\n` +
    `${lines.join('\n')}\n}\n${declarations.modules}`
  );
}

/** `host.mjs`: the package bundled (so the output runs wherever it is moved) behind one export per function path. */
function bundleHostModule(specifier: string, functions: readonly PackageFunction[], rootDir: string, label: string): Promise<Bundle> {
  const exports = functions.map((fn, i) => {
    const target = `pkg${fn.path.split('.').map((part) => `[${stringLiteral(part)}]`).join('')}`;
    const args = fn.params.map((p) => `params[${stringLiteral(p.name)}]`).join(', ');
    return { local: `f${i}`, line: `const f${i} = (params) => ${target}(${args});`, name: fn.path };
  });
  const contents =
    `import * as pkg from ${stringLiteral(specifier)};\n${exports.map((e) => e.line).join('\n')}\n` +
    `export { ${exports.map((e) => `${e.local} as ${stringLiteral(e.name)}`).join(', ')} };\n`;
  return bundleText({ contents, loader: 'js', rootDir, label }, HOST_BUNDLE_OPTIONS);
}
