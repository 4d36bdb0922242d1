import { readFile } from 'node:fs/promises';

/** What the CLI reads from its own package.json (`scripts/version.mjs` sets the version of the whole set there). */
export interface PackageInfo {
  version: string;
  /** `engines.node`: the Node versions the packages run on. */
  node: string;
}

/** The CLI's package.json, found from this module (one folder down in `src/` and in `dist/` alike). */
export async function packageInfo(): Promise<PackageInfo> {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; engines: { node: string } };
  return { version: pkg.version, node: pkg.engines.node };
}
