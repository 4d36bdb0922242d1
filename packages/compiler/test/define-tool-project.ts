import { join, resolve } from 'node:path';
import { beforeAll, expect } from 'vitest';
import type { CapabilityIR } from '@agent-spaces/capabilities';
import { readDefineToolSource } from '../src/sources/define-tool.js';
import type { SourceResult } from '../src/sources/types.js';
import { sourceContext } from './helpers.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/** The repository root (its `capabilities/` hold the example sources). */
export const REPO = resolve(import.meta.dirname, '../../..');

/** A temp project for reading `defineTool()` sources: created before the file's tests, removed after. */
export interface DefineToolProject {
  /** The project folder; the repository's node_modules are linked into it so sources can import packages. */
  readonly root: string;
  /** Writes `files` into a fresh folder of the project and reads `entry` (default: the first file). */
  read(files: Record<string, string>, entry?: string): Promise<SourceResult & { dir: string }>;
}

/** Registers the hooks of a {@link DefineToolProject} for the calling test file. */
export function useDefineToolProject(): DefineToolProject {
  let project: Project;
  let counter = 0;
  beforeAll(async () => {
    project = await makeProject({}, { nodeModules: true });
  });
  return {
    get root() {
      return project.dir;
    },
    async read(files, entry = Object.keys(files)[0]!) {
      const folder = `case-${++counter}`;
      await project.write(Object.fromEntries(Object.entries(files).map(([name, content]) => [`${folder}/${name}`, content])));
      const dir = project.path(folder);
      return { ...(await readDefineToolSource(join(dir, entry), sourceContext(project.dir))), dir };
    },
  };
}

/** The single capability of a result that has no diagnostics. */
export function only(result: SourceResult): CapabilityIR {
  expect(result.diagnostics).toEqual([]);
  expect(result.capabilities).toHaveLength(1);
  return result.capabilities[0]!;
}
