/**
 * npm packages named in the config's `capabilities`: `'npm:<package>'`, `'@scope/<package>'`, a folder holding a
 * package (`'./capabilities/company-sdk'`) or `{ package, name?, exports?, mode? }`, checked and put in one shape.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { STD_MODULE, isRecord, type CapabilityEntry, type NpmPackageConfig } from '@agent-spaces/capabilities';
import { kebabCase } from '../../ir/names.js';

/** The prefix of a `capabilities` string that names an npm package. */
const NPM_PREFIX = 'npm:';

/** An npm package entry, resolved: the module id it is built as and what it offers. */
export interface NpmSource {
  package: string;
  /** Absolute folder of a package given by path (`./capabilities/company-sdk`) rather than installed by name. */
  dir?: string;
  /** Module id: `@capabilities/<id>`. */
  id: string;
  /** Only these exports, when given. */
  exports?: string[];
  mode: 'sandbox' | 'host';
}

// npm's rules: an optional scope, lowercase, no leading dot or underscore, URL-safe characters.
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** True for an npm package name (`x`, `@scope/x`): never a path (no segment starts with a dot). */
export const isPackageName = (name: string): boolean => PACKAGE_NAME.test(name);

/** True for a `capabilities` entry that names an npm package by name (`npm:x`, `@scope/x`, an object), not files. */
export function isPackageEntry(entry: unknown): entry is string | Record<string, unknown> {
  return (typeof entry === 'string' && (entry.startsWith(NPM_PREFIX) || (entry.startsWith('@') && entry !== STD_MODULE))) || isRecord(entry);
}

/** True for a `capabilities` string naming a folder (relative to `rootDir`) that holds a `package.json`. */
export function isPackageFolder(entry: string, rootDir: string): boolean {
  return /^\.\.?\//.test(entry) && existsSync(join(rootDir, entry, 'package.json'));
}

/** What is wrong with a package entry of `capabilities` (`{ key: 'package', message: 'must be an npm package name' }`), or undefined. */
export function findPackageEntryProblem(entry: string | Record<string, unknown>): { key?: string; message: string } | undefined {
  if (typeof entry === 'string') {
    const name = entry.startsWith(NPM_PREFIX) ? entry.slice(NPM_PREFIX.length) : entry;
    return PACKAGE_NAME.test(name) ? undefined : { message: `"${entry}" does not name an npm package (npm:<package>, @scope/<package>)` };
  }
  for (const key of Object.keys(entry)) {
    if (!['package', 'name', 'exports', 'mode'].includes(key)) return { key, message: 'is not a known key (known: package, name, exports, mode)' };
  }
  if (typeof entry.package !== 'string' || !(PACKAGE_NAME.test(entry.package) || /^\.\.?\//.test(entry.package))) {
    return { key: 'package', message: 'must be an npm package name or a folder path starting with ./ or ../' };
  }
  if (entry.name !== undefined && (typeof entry.name !== 'string' || kebabCase(entry.name) === '')) return { key: 'name', message: 'must be a module name' };
  const exports = entry.exports;
  if (exports !== undefined && !(Array.isArray(exports) && exports.length > 0 && exports.every((e) => typeof e === 'string' && IDENTIFIER.test(e)))) {
    return { key: 'exports', message: 'must be a non-empty array of export names' };
  }
  if (entry.mode !== undefined && entry.mode !== 'sandbox' && entry.mode !== 'host') return { key: 'mode', message: `must be 'sandbox' or 'host'` };
  return undefined;
}

/** The module id of a package by default: its name without `@`, `/` → `-` (`@company/sdk` → `company-sdk`). */
export function defaultId(pkg: string): string {
  return kebabCase(pkg.replace(/^@/, '').replace('/', '-'));
}

/**
 * The resolved form of a package entry (checked by {@link findPackageEntryProblem}) or package folder; a folder's
 * package name is read from its `package.json` (relative to `rootDir`).
 */
export function toNpmSource(entry: CapabilityEntry, rootDir: string): NpmSource {
  const config: NpmPackageConfig = typeof entry === 'string' ? { package: entry.startsWith(NPM_PREFIX) ? entry.slice(NPM_PREFIX.length) : entry } : entry;
  const dir = /^\.\.?\//.test(config.package) ? resolve(rootDir, config.package) : undefined;
  const name = dir ? folderPackageName(dir) : config.package;
  return {
    package: name,
    ...(dir ? { dir } : {}),
    id: config.name === undefined ? defaultId(name) : kebabCase(config.name),
    ...(config.exports ? { exports: [...config.exports] } : {}),
    mode: config.mode ?? 'sandbox',
  };
}

/** The `name` in a package folder's `package.json`, or the folder's name when it has none (or none is readable). */
function folderPackageName(dir: string): string {
  try {
    const json: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (isRecord(json) && typeof json.name === 'string' && PACKAGE_NAME.test(json.name)) return json.name;
  } catch {
    // a folder without a readable package.json is found missing when it is read
  }
  return dir.split(/[\\/]/).at(-1) ?? dir;
}
