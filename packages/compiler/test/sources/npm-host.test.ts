import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_FILES } from '@agent-spaces/capabilities';
import { buildCapabilities, configSources, loadConfig } from '../../src/index.js';
import { makeProject } from '../../../../test/fixtures/project.js';

describe('a host-mode npm package', () => {
  it('is bundled as every host module is: a native addon (.node) stays an import by absolute path', async () => {
    const pkg = 'node_modules/native-pkg';
    const p = await makeProject({
      [`${pkg}/package.json`]: JSON.stringify({ name: 'native-pkg', version: '1.0.0', main: 'index.js', types: 'index.d.ts' }),
      [`${pkg}/index.js`]: "let native = null;\ntry { native = require('./build/addon.node'); } catch {}\nexports.hasNative = async () => native !== null;\n",
      [`${pkg}/index.d.ts`]: '/** Whether the native addon loaded. */\nexport declare function hasNative(): Promise<boolean>;\n',
      // Not a real addon: loading it fails, which the package catches.
      [`${pkg}/build/addon.node`]: 'not an addon',
      'agent-spaces.config.json': JSON.stringify({ capabilities: [{ package: 'native-pkg', mode: 'host' }] }),
    });
    const { config, rootDir } = await loadConfig({ cwd: p.dir });
    const report = await buildCapabilities({ rootDir, sources: config.capabilities, outDir: config.outDir, configSources: configSources(config) });
    expect(report.capabilities.map((c) => [c.id, c.status, c.diagnostics.map((d) => d.message)])).toEqual([['native-pkg', 'built', []]]);
    const host = join(p.dir, '.agent-spaces/capabilities/native-pkg', CAPABILITY_FILES.host);
    expect(await readFile(host, 'utf8')).toContain(join(p.dir, pkg, 'build/addon.node'));
    const module = (await import(/* @vite-ignore */ pathToFileURL(host).href)) as { hasNative(): Promise<boolean> };
    expect(await module.hasNative()).toBe(false);
  });
});
