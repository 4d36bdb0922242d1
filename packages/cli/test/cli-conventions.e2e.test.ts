// CLI conventions (issue 31, item 7) from a user's view: the real bin in temp projects.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { makeProject } from '../../../test/fixtures/project.js';
import { installWithoutIsolatedVm } from './support/without-isolated-vm.js';

describe('isolated-vm missing', () => {
  it('fails a run with SANDBOX_UNAVAILABLE pointing to doctor, not a require stack; doctor says what to fix', async () => {
    const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] }, 'hello.ts': 'export default 1 + 1;\n' });
    expect((await project.cli(['capabilities', 'build'])).code).toBe(0);
    const install = await installWithoutIsolatedVm();
    try {
      const bin = (...args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile(process.execPath, [install.bin, ...args], { cwd: project.dir, timeout: 60_000 }, (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
          );
        });
      const run = await bin('run', 'hello.ts');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('SANDBOX_UNAVAILABLE');
      expect(run.stderr).toContain('agent-spaces doctor');
      expect(run.stderr).not.toContain('Require stack');
      const json = JSON.parse((await bin('run', 'hello.ts', '--json')).stdout);
      expect(json.ok).toBe(false);
      expect(json.error.code).toBe('SANDBOX_UNAVAILABLE');
      expect(json.error.data.cause).toMatch(/isolated-vm/);
      const doctor = await bin('doctor');
      expect(doctor.code).toBe(1);
      expect(doctor.stderr + doctor.stdout).toMatch(/✗ isolated-vm/);
    } finally {
      await install.remove();
    }
  }, 120_000);
});
