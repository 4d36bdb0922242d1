import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childEntry } from '../../src/process/parent/child-entry.js';

describe("the sandbox process's entry", () => {
  it('holds the child side and the isolate code only: no parent side, no transpiler, no import check', async () => {
    const bundle = readFileSync(await childEntry(), 'utf8');
    expect(bundle).toContain('runtime/src/process/child/main.ts');
    expect(bundle).toContain('runtime/src/isolate/runner.ts');
    expect(bundle).not.toMatch(/runtime\/src\/(script|process\/parent)\//);
    expect(bundle).not.toContain('esbuild');
    expect(bundle).not.toContain('acorn');
  });
});
