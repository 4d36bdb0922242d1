// The catalogs and query sets the search is measured on, shared by search-quality.test.ts and bench/search.mjs: a
// project holding the example capabilities (capabilities/) and the memory, filesystem, everything and
// sequential-thinking MCP servers, built by the compiler as `capabilities build` builds it, and a ~500-function
// catalog compiled from GitHub's OpenAPI description for timing.
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from '@agent-spaces/sdk';
import { buildCatalog, type Catalog } from '../../src/catalog.js';
import { searchCatalog } from '../../src/search.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const bin = (name: string) => join(REPO, 'node_modules/.bin', name);

/** One query and the catalog paths that answer it (any one of them in the top 3 is a hit). */
export interface SearchQuery {
  query: string;
  expected: string[];
}

/** A named query set read from this folder (`heldout`, `tuned`, `blind`). */
export async function readQueries(name: 'heldout' | 'tuned' | 'blind'): Promise<SearchQuery[]> {
  const file = JSON.parse(await readFile(join(HERE, `${name}.json`), 'utf8')) as { queries: SearchQuery[] };
  return file.queries;
}

/** Top-1 and top-3 hits of a query set, with the queries whose answer is not in the top 3. */
export interface QueryScore {
  total: number;
  top1: number;
  top3: number;
  misses: { query: string; expected: string[]; got: string[] }[];
}

/** Runs every query of `queries` through `search` (default `searchCatalog`) on `catalog` and counts where the expected function ranks. */
export function scoreQueries(catalog: Catalog, queries: readonly SearchQuery[], search: typeof searchCatalog = searchCatalog): QueryScore {
  const score: QueryScore = { total: queries.length, top1: 0, top3: 0, misses: [] };
  for (const { query, expected } of queries) {
    const got = search(catalog, query).slice(0, 3).map((hit) => hit.entry.path);
    if (expected.includes(got[0] ?? '')) score.top1++;
    if (got.some((path) => expected.includes(path))) score.top3++;
    else score.misses.push({ query, expected, got });
  }
  return score;
}

/**
 * `catalog` without the example capabilities: `@agent-spaces/std` and the MCP servers only, the catalog the tuned
 * set was written for (its "weather for a location" means the everything server's structured-content tool).
 */
export function mcpServersOnly(catalog: Catalog): Catalog {
  return { ...catalog, entries: catalog.entries.filter((entry) => !entry.module.startsWith('@capabilities/') || entry.module.startsWith('@capabilities/mcp-')) };
}

/** A built project and its catalog; `remove()` deletes the folder. */
export interface BuiltCatalog {
  catalog: Catalog;
  remove(): Promise<void>;
}

/**
 * Builds a temporary project with the repository's example capabilities and the memory, filesystem, everything and
 * sequential-thinking MCP servers (named as the query sets name them), and reads its catalog as `mcp serve` does,
 * `@agent-spaces/std` included.
 */
export async function examplesCatalog(): Promise<BuiltCatalog> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-search-'));
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await cp(join(REPO, 'capabilities'), join(dir, 'capabilities'), { recursive: true });
  await mkdir(join(dir, 'files'));
  const mcpServers = {
    memory: { command: bin('mcp-server-memory'), args: [], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
    filesystem: { command: bin('mcp-server-filesystem'), args: [join(dir, 'files')] },
    everything: { command: bin('mcp-server-everything'), args: ['stdio'] },
    thinking: { command: bin('mcp-server-sequential-thinking'), args: [] },
  };
  await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.ts', 'capabilities/*.json'], mcpServers }));
  return { catalog: await buildProjectCatalog(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A project holding GitHub's REST API (about 1,100 operations) as one capability, for timing a large catalog. */
export async function largeCatalog(size: number): Promise<BuiltCatalog> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-search-large-'));
  const spec = join(REPO, 'node_modules/@octokit/openapi/generated/api.github.com.json');
  await mkdir(join(dir, 'capabilities'));
  await writeFile(join(dir, 'capabilities/github.openapi.json'), JSON.stringify({ spec }));
  await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*'] }));
  const catalog = await buildProjectCatalog(dir);
  return { catalog: { ...catalog, entries: catalog.entries.slice(0, size) }, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function buildProjectCatalog(dir: string): Promise<Catalog> {
  const { config, rootDir } = await loadConfig({ cwd: dir });
  const report = await buildCapabilities({ rootDir, sources: config.capabilities, configSources: configSources(config), outDir: config.outDir });
  const failed = report.capabilities.filter((c) => c.status === 'failed');
  if (failed.length > 0) throw new Error(`build failed: ${JSON.stringify(failed.map((c) => c.diagnostics))}`);
  const ids = report.capabilities.map((c) => c.id);
  return buildCatalog({ capabilities: ids, declarations: () => SANDBOX_DECLARATIONS }, { rootDir: dir });
}
