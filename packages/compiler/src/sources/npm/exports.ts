/**
 * The functions a package exports, read from its declarations with the TypeScript checker: each exported function,
 * and each function of an exported object (`alerts.clear`), re-exports followed. Both modes read them: `host` mode to
 * make capability functions of them, both to write the catalog that search shows.
 */
import type ts from 'typescript';

/** One exported function: `camelCase`, or `client.get` for a function of an exported object. */
export interface PackageExport {
  path: string;
  /** The symbol holding its doc comment. */
  symbol: ts.Symbol;
  /** Its last overload: the one `Parameters<typeof fn>` takes. */
  signature: ts.Signature;
}

/** What the entry module exports: its functions, its classes (by name), and the `exports` names it does not export. */
export interface PackageExports {
  functions: PackageExport[];
  classes: string[];
  missing: string[];
}

/**
 * The functions the module `entry` of `program` exports (only `wanted` when given), in declaration order; undefined
 * when its declarations are not a module. A default export is left out, as `export *` leaves it out.
 */
export function packageExports(typescript: typeof ts, program: ts.Program, entry: string, wanted: readonly string[] | undefined): PackageExports | undefined {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return undefined;
  const only = wanted ? new Set(wanted) : undefined;
  const result: PackageExports = { functions: [], classes: [], missing: [] };
  const found = new Set<string>();
  const add = (path: string, type: ts.Type, symbol: ts.Symbol) => {
    const signature = checker.getSignaturesOfType(type, typescript.SignatureKind.Call).at(-1);
    if (signature) result.functions.push({ path, symbol, signature });
    return signature !== undefined;
  };
  for (let symbol of checker.getExportsOfModule(moduleSymbol)) {
    const name = symbol.name;
    if (name === 'default' || (only && !only.has(name))) continue;
    found.add(name);
    if (symbol.flags & typescript.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (!(symbol.flags & typescript.SymbolFlags.Value)) continue;
    const type = checker.getTypeOfSymbol(symbol);
    if (symbol.flags & typescript.SymbolFlags.Class) result.classes.push(name);
    else if (!add(name, type, symbol) && type.flags & typescript.TypeFlags.Object) {
      for (const member of checker.getPropertiesOfType(type)) add(`${name}.${member.name}`, checker.getTypeOfSymbol(member), member);
    }
  }
  result.missing = (wanted ?? []).filter((name) => !found.has(name));
  return result;
}

/** The values a package's declarations entry exports, which its sandbox bundle names one by one. */
export interface ValueExports {
  /** Named value exports (functions, classes, constants, enums, namespaces with values), identifiers, no `default`. */
  names: string[];
  /** A default export: `export default`, or `export =` (the CommonJS `module.exports` itself, as `import x from` sees it). */
  hasDefault: boolean;
  /** The declarations say `export =`: a CommonJS `module.exports = …`. */
  exportEquals: boolean;
}

/**
 * The value exports of the module `entry` of `program` (see {@link ValueExports}); undefined when its declarations are
 * not a module. Types, interfaces and `const enum`s (erased from JavaScript) are left out.
 * @example
 * valueExports(typescript, program, '/p/node_modules/path-to-regexp/dist/index.d.ts') // { names: ['PathError', 'TokenData', 'parse', 'compile', 'match', …], hasDefault: false, exportEquals: false }
 */
export function valueExports(typescript: typeof ts, program: ts.Program, entry: string): ValueExports | undefined {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return undefined;
  const exportEquals = moduleSymbol.exports?.has(typescript.InternalSymbolName.ExportEquals) === true;
  const result: ValueExports = { names: [], hasDefault: exportEquals, exportEquals };
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & typescript.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const value = symbol.flags & typescript.SymbolFlags.Value & ~typescript.SymbolFlags.ConstEnum;
    if (!value) continue;
    if (exported.name === 'default') result.hasDefault = true;
    else if (/^[A-Za-z_$][\w$]*$/.test(exported.name)) result.names.push(exported.name);
  }
  return result;
}
