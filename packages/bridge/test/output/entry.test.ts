import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** Packages `src/<file>` loads when it is imported: static imports only, followed through local files. */
async function packagesLoadedAtImport(file: string): Promise<string[]> {
  const entry = join(import.meta.dirname, '..', '..', 'src', file);
  const result = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent' });
  const inputs = result.metafile.inputs;
  const start = Object.keys(inputs).find((path) => path.endsWith(`src/${file}`))!;
  const seen = new Set<string>([start]);
  const packages = new Set<string>();
  for (const path of seen) {
    for (const imported of inputs[path]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(imported.path);
      else seen.add(imported.path);
    }
  }
  return [...packages].sort();
}

describe('@agent-spaces/bridge/output', () => {
  it('loads node builtins and @agent-spaces/capabilities only: no validator, no MCP client, no tracing', async () => {
    const packages = await packagesLoadedAtImport('output-entry.ts');
    expect(packages.filter((name) => !name.startsWith('node:'))).toEqual(['@agent-spaces/capabilities']);
  });

  it('is lighter than the package root, which loads tracing (so the probe above sees what it looks for)', async () => {
    expect(await packagesLoadedAtImport('index.ts')).toContain('@opentelemetry/api');
  });
});
