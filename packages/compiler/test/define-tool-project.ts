import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { CapabilityIR } from '@agent-spaces/capabilities';
import { readDefineToolSource } from '../src/sources/define-tool.js';
import type { SourceResult } from '../src/sources/types.js';
import { sourceContext } from './helpers.js';

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
  let root = '';
  let counter = 0;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'as-define-tool-'));
    await symlink(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return {
    get root() {
      return root;
    },
    async read(files, entry = Object.keys(files)[0]!) {
      const dir = join(root, `case-${++counter}`);
      for (const [name, content] of Object.entries(files)) {
        await mkdir(resolve(dir, name, '..'), { recursive: true });
        await writeFile(join(dir, name), content);
      }
      return { ...(await readDefineToolSource(join(dir, entry), sourceContext(root))), dir };
    },
  };
}

/** The single capability of a result that has no diagnostics. */
export function only(result: SourceResult): CapabilityIR {
  expect(result.diagnostics).toEqual([]);
  expect(result.capabilities).toHaveLength(1);
  return result.capabilities[0]!;
}
