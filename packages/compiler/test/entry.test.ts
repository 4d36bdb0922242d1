import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = join(import.meta.dirname, '..', 'src', 'index.ts');

/** Packages the entry loads when it is imported: static imports only, followed through local files. */
async function packagesLoadedAtImport(): Promise<string[]> {
  const result = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent' });
  const inputs = result.metafile.inputs;
  const start = Object.keys(inputs).find((path) => path.endsWith('src/index.ts'))!;
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

describe('the package entry', () => {
  it('loads neither typescript nor esbuild when imported (they are imported on first use)', async () => {
    const packages = await packagesLoadedAtImport();
    expect(packages).toContain('@agent-spaces/capabilities');
    expect(packages).not.toContain('typescript');
    expect(packages).not.toContain('esbuild');
  });

  it('reads the build output through @agent-spaces/bridge/output, never loading the root of the bridge', async () => {
    const packages = await packagesLoadedAtImport();
    expect(packages).toContain('@agent-spaces/bridge/output');
    expect(packages).not.toContain('@agent-spaces/bridge');
  });
});
