import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtFile, capabilitiesDir, capabilityIdOf, editorTsconfig, resolveOutDir } from '../src/index.js';

describe('paths', () => {
  it('puts the output folder in the project unless outDir says otherwise, and capabilities in it', () => {
    expect(resolveOutDir('/project')).toBe(join('/project', '.agent-spaces'));
    expect(resolveOutDir('/project', 'out')).toBe(join('/project', 'out'));
    expect(capabilitiesDir('/project/out')).toBe(join('/project/out', 'capabilities'));
  });

  it("points a folder's editor tsconfig at the output folder's fragment, wherever both are", () => {
    const extendsOf = (folder: string, out: string) => JSON.parse(editorTsconfig(folder, out)) as { extends: string; include: string[] };
    expect(extendsOf('/project/agents', '/project/.agent-spaces')).toEqual({ extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] });
    expect(extendsOf('/project', '/project/.agent-spaces').extends).toBe('./.agent-spaces/tsconfig.json');
    expect(extendsOf('/project/a/b', '/project/build/out').extends).toBe('../../build/out/tsconfig.json');
    expect(extendsOf('/project/out/agents', '/project/out').extends).toBe('../tsconfig.json');
  });
});

describe('builtFile', () => {
  it('names a file in the folder of a capability', () => {
    expect(builtFile('/out/capabilities', 'trains', 'meta.json')).toBe(join('/out/capabilities', 'trains', 'meta.json'));
  });

  it('fails with CAPABILITY_NOT_FOUND for an id that would leave the folder', () => {
    for (const id of ['..', '../capabilities', 'a/b', '']) {
      expect(() => builtFile('/out/capabilities', id, 'meta.json')).toThrowError(expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND', data: { id } }));
    }
  });
});

describe('capabilityIdOf', () => {
  it("names an MCP server's capability 'mcp:<server>' as its id 'mcp-<server>', and leaves ids as they are", () => {
    expect(capabilityIdOf('mcp:memory')).toBe('mcp-memory');
    expect(capabilityIdOf('mcp-memory')).toBe('mcp-memory');
    expect(capabilityIdOf('train-schedule')).toBe('train-schedule');
  });
});
