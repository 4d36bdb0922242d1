import { spawn } from 'node:child_process';
import { link, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeProject } from '../../../../test/fixtures/project.js';
import { errorOf, stdBridge, valueOf } from '../helpers.js';

let base: string;
let workspace: string;
let outside: string;
let call: ReturnType<typeof stdBridge>['call'];

beforeEach(async () => {
  ({ dir: base } = await makeProject({ 'outside/secret.txt': 'top secret' }));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  ({ call } = stdBridge({ workspaceDir: workspace, write: true }));
});

describe('fs inside the workspace', () => {
  it('creates the workspace on first use and writes, appends, reads and lists files', async () => {
    expect(valueOf(await call('fs.readdir', { path: '.' }))).toEqual([]);
    expect(valueOf(await call('fs.mkdir', { path: 'notes/2025' }))).toBeNull();
    valueOf(await call('fs.writeFile', { path: 'notes/2025/a.txt', data: 'hello' }));
    valueOf(await call('fs.appendFile', { path: 'notes/2025/a.txt', data: ' world' }));
    expect(valueOf(await call('fs.readFile', { path: 'notes/2025/a.txt' }))).toBe('hello world');
    expect(await readFile(join(workspace, 'notes/2025/a.txt'), 'utf8')).toBe('hello world');
    valueOf(await call('fs.writeFile', { path: 'notes/b.bin', data: Buffer.from([0, 255, 1]).toString('base64'), encoding: 'base64' }));
    expect(valueOf(await call('fs.readFile', { path: 'notes/b.bin', encoding: 'base64' }))).toBe('AP8B');
    expect(valueOf(await call('fs.readdir', { path: 'notes' }))).toEqual([
      { name: '2025', type: 'directory' },
      { name: 'b.bin', type: 'file' },
    ]);
  });

  it('stats, checks existence and removes', async () => {
    valueOf(await call('fs.writeFile', { path: 'a.txt', data: 'abc' }));
    const stat = valueOf(await call('fs.stat', { path: 'a.txt' })) as Record<string, unknown>;
    expect(stat).toMatchObject({ type: 'file', size: 3 });
    expect(Number.isNaN(Date.parse(stat.modifiedAt as string))).toBe(false);
    expect(valueOf(await call('fs.exists', { path: 'a.txt' }))).toBe(true);
    expect(valueOf(await call('fs.exists', { path: 'nope/b.txt' }))).toBe(false);
    valueOf(await call('fs.rm', { path: 'a.txt' }));
    expect(valueOf(await call('fs.exists', { path: 'a.txt' }))).toBe(false);
    valueOf(await call('fs.rm', { path: 'a.txt', force: true }));
  });

  it('allows .. that stays inside the workspace', async () => {
    valueOf(await call('fs.mkdir', { path: 'a/b' }));
    valueOf(await call('fs.writeFile', { path: 'a/b/../c.txt', data: 'x' }));
    expect(valueOf(await call('fs.readFile', { path: './a/c.txt' }))).toBe('x');
  });

  it('follows a symlink that stays inside the workspace', async () => {
    valueOf(await call('fs.mkdir', { path: 'real' }));
    await symlink(join(workspace, 'real'), join(workspace, 'alias'));
    valueOf(await call('fs.writeFile', { path: 'alias/x.txt', data: 'via alias' }));
    expect(valueOf(await call('fs.readFile', { path: 'real/x.txt' }))).toBe('via alias');
  });

  it('reports file system errors with the agent path, never a host path', async () => {
    const missing = errorOf(await call('fs.readFile', { path: 'missing.txt' }));
    expect(missing).toMatchObject({ code: 'HANDLER_ERROR', data: { errno: 'ENOENT', path: 'missing.txt' } });
    valueOf(await call('fs.mkdir', { path: 'dir/sub' }));
    const notEmpty = errorOf(await call('fs.rm', { path: 'dir' }));
    expect(notEmpty.data?.errno).toMatch(/ENOTEMPTY|EISDIR|ERR_FS_EISDIR/);
    for (const error of [missing, notEmpty]) expect(error.message).not.toContain(base);
    valueOf(await call('fs.rm', { path: 'dir', recursive: true }));
    expect(valueOf(await call('fs.exists', { path: 'dir' }))).toBe(false);
  });

  it('reports a workspace folder that cannot be created without naming host folders', async () => {
    await writeFile(join(base, 'file'), 'x');
    const broken = stdBridge({ workspaceDir: join(base, 'file', 'workspace'), write: true });
    const error = errorOf(await broken.call('fs.readdir', { path: '.' }));
    expect(error).toMatchObject({ code: 'HANDLER_ERROR', data: { errno: 'ENOTDIR' } });
    expect(error.message).not.toContain(base);
  });

  it('validates params against the schemas', async () => {
    expect(errorOf(await call('fs.readFile', {})).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('fs.readFile', { path: 'a', encoding: 'latin1' })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('fs.writeFile', { path: 'a', data: 42 })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('fs.format', { path: 'a' })).code).toBe('FUNCTION_NOT_FOUND');
  });
});

describe('a read-only workspace (the default)', () => {
  it('reads and lists, and refuses every change with ACCESS_DENIED before touching the folder', async () => {
    await mkdir(workspace);
    await writeFile(join(workspace, 'a.txt'), 'kept');
    const readOnly = stdBridge({ workspaceDir: workspace });
    expect(valueOf(await readOnly.call('fs.readFile', { path: 'a.txt' }))).toBe('kept');
    expect(valueOf(await readOnly.call('fs.readdir', { path: '.' }))).toEqual([{ name: 'a.txt', type: 'file' }]);
    const changes: Array<[string, Record<string, unknown>]> = [
      ['fs.writeFile', { path: 'a.txt', data: 'x' }],
      ['fs.writeFile', { path: 'new.txt', data: 'x' }],
      ['fs.appendFile', { path: 'a.txt', data: 'x' }],
      ['fs.mkdir', { path: 'sub' }],
      ['fs.rm', { path: 'a.txt' }],
      ['fs.rm', { path: '.', recursive: true }],
    ];
    for (const [fn, params] of changes) {
      expect(errorOf(await readOnly.call(fn, params)), fn).toMatchObject({ code: 'ACCESS_DENIED', data: { path: params.path } });
    }
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('kept');
    expect(valueOf(await readOnly.call('fs.readdir', { path: '.' }))).toEqual([{ name: 'a.txt', type: 'file' }]);
  });

  it('refuses a write setting that is not a boolean', () => {
    expect(() => stdBridge({ workspaceDir: workspace, write: 'yes' as never })).toThrowError(
      expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'std.fs.write' } }),
    );
  });
});

describe('fs escape attempts', () => {
  const escapes: Array<[string, string, Record<string, unknown>]> = [
    ['climbing out with ..', 'fs.readFile', { path: '../outside/secret.txt' }],
    ['climbing out from a subfolder', 'fs.writeFile', { path: 'a/../../outside/new.txt', data: 'x' }],
    ['just ..', 'fs.readdir', { path: '..' }],
    ['an absolute path', 'fs.readFile', { path: '/etc/passwd' }],
    ['an absolute path to the outside folder', 'fs.readdir', { path: '' }],
    ['a NUL byte', 'fs.readFile', { path: 'a.txt\0../../etc/passwd' }],
    ['removing the workspace itself', 'fs.rm', { path: '.', recursive: true }],
    ['removing the workspace via a subfolder', 'fs.rm', { path: 'a/..', recursive: true }],
  ];

  it.each(escapes)('refuses %s', async (_, fn, params) => {
    const p = { ...params, path: params.path === '' ? outside : params.path };
    const error = errorOf(await call(fn, p));
    expect(error.code).toBe('ACCESS_DENIED');
    expect(error.data?.path).toBe(p.path);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('refuses to read, write or list through a symlink pointing outside', async () => {
    valueOf(await call('fs.mkdir', { path: '.' }));
    await symlink(outside, join(workspace, 'link'));
    await symlink(join(outside, 'secret.txt'), join(workspace, 'secret-link.txt'));
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['fs.readFile', { path: 'link/secret.txt' }],
      ['fs.readFile', { path: 'secret-link.txt' }],
      ['fs.writeFile', { path: 'secret-link.txt', data: 'overwritten' }],
      ['fs.appendFile', { path: 'link/new.txt', data: 'x' }],
      ['fs.readdir', { path: 'link' }],
      ['fs.stat', { path: 'link/secret.txt' }],
      ['fs.exists', { path: 'link/secret.txt' }],
      ['fs.mkdir', { path: 'link/sub' }],
      ['fs.rm', { path: 'link/secret.txt' }],
    ];
    for (const [fn, params] of attempts) {
      expect(errorOf(await call(fn, params)), `${fn} ${JSON.stringify(params)}`).toMatchObject({ code: 'ACCESS_DENIED' });
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('refuses a dangling symlink that would create a file outside', async () => {
    valueOf(await call('fs.mkdir', { path: '.' }));
    await symlink(join(outside, 'planted.txt'), join(workspace, 'dangling'));
    expect(errorOf(await call('fs.writeFile', { path: 'dangling', data: 'x' })).code).toBe('ACCESS_DENIED');
    expect(errorOf(await call('fs.writeFile', { path: 'dangling/x', data: 'x' })).code).toBe('ACCESS_DENIED');
  });

  it('removes a symlink pointing outside as a link, leaving its target alone', async () => {
    valueOf(await call('fs.mkdir', { path: '.' }));
    await symlink(outside, join(workspace, 'link'));
    valueOf(await call('fs.rm', { path: 'link', recursive: true }));
    expect(valueOf(await call('fs.readdir', { path: '.' }))).toEqual([]);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });
});

describe('fs refuses files with more than one hard link (issue 25)', () => {
  const secret = () => join(outside, 'secret.txt');
  /** Every call that reads or reports a file, against `path`: each must be ACCESS_DENIED. */
  const attempts = (path: string): Array<[string, Record<string, unknown>]> => [
    ['fs.readFile', { path }],
    ['fs.readFile', { path, encoding: 'base64' }],
    ['fs.writeFile', { path, data: 'overwritten' }],
    ['fs.appendFile', { path, data: ' appended' }],
    ['fs.stat', { path }],
    ['fs.exists', { path }],
  ];
  const expectRefused = async (path: string) => {
    for (const [fn, params] of attempts(path)) {
      const error = errorOf(await call(fn, params));
      expect(error, `${fn} ${path}`).toMatchObject({ code: 'ACCESS_DENIED', data: { path } });
      expect(error.message).toContain('hard links');
      expect(error.message).not.toContain(base);
    }
    expect(await readFile(secret(), 'utf8')).toBe('top secret');
  };

  it.each([
    ['at the top of the workspace', 'planted.txt'],
    ['in a subfolder', 'a/b/planted.txt'],
    ['under a name that looks like a folder entry', 'a/..planted'],
  ])('refuses a hard link to an outside file %s, for read, write, append, stat and exists', async (_, path) => {
    await mkdir(join(workspace, path, '..'), { recursive: true });
    await link(secret(), join(workspace, path));
    await expectRefused(path);
  });

  it('refuses a hard link planted after the run has used the workspace, and a workspace file linked from outside', async () => {
    valueOf(await call('fs.writeFile', { path: 'own.txt', data: 'mine' }));
    expect(valueOf(await call('fs.readFile', { path: 'own.txt' }))).toBe('mine');
    await link(secret(), join(workspace, 'late.txt'));
    await expectRefused('late.txt');
    // A second name outside for a file the agent wrote: writing it would now change the outside file too.
    await link(join(workspace, 'own.txt'), join(outside, 'copy.txt'));
    expect(errorOf(await call('fs.writeFile', { path: 'own.txt', data: 'changed' })).code).toBe('ACCESS_DENIED');
    expect(await readFile(join(outside, 'copy.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a symlink inside the workspace that leads to a hard link', async () => {
    await mkdir(join(workspace, 'sub'), { recursive: true });
    await link(secret(), join(workspace, 'sub/planted.txt'));
    await symlink(join(workspace, 'sub/planted.txt'), join(workspace, 'alias.txt'));
    await symlink(join(workspace, 'sub'), join(workspace, 'alias-dir'));
    await expectRefused('alias.txt');
    await expectRefused('alias-dir/planted.txt');
  });

  it('refuses it in a read-only workspace too', async () => {
    await mkdir(workspace);
    await link(secret(), join(workspace, 'planted.txt'));
    const readOnly = stdBridge({ workspaceDir: workspace });
    expect(errorOf(await readOnly.call('fs.readFile', { path: 'planted.txt' })).code).toBe('ACCESS_DENIED');
    expect(errorOf(await readOnly.call('fs.stat', { path: 'planted.txt' })).code).toBe('ACCESS_DENIED');
  });

  it('lists a hard link by name and removes the name, leaving the outside file alone', async () => {
    await mkdir(workspace);
    await link(secret(), join(workspace, 'planted.txt'));
    expect(valueOf(await call('fs.readdir', { path: '.' }))).toEqual([{ name: 'planted.txt', type: 'file' }]);
    valueOf(await call('fs.rm', { path: 'planted.txt' }));
    expect(valueOf(await call('fs.exists', { path: 'planted.txt' }))).toBe(false);
    expect(await readFile(secret(), 'utf8')).toBe('top secret');
    expect((await stat(secret())).nlink).toBe(1);
  });

  it('checks the descriptor it reads and writes: a file swapped for a hard link in a race is never reached', async () => {
    await mkdir(workspace);
    const target = join(workspace, 'racy.txt');
    await writeFile(target, 'mine');
    // The secret keeps a second name throughout, so whenever a descriptor reaches it, it counts two links or more. (A
    // local process that also takes links away between the open and the checks is outside the model: it could read
    // the file itself; docs/security.md.)
    await link(secret(), join(workspace, 'keep.txt'));
    // Another process swaps the name between a file of the workspace and a hard link to the secret, atomically.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const [secret, target] = process.argv.slice(1);
         process.stdout.write('go\\n');
         for (let i = 0; ; i++) {
           const tmp = target + '.' + (i % 2);
           if (i % 2) fs.linkSync(secret, tmp); else fs.writeFileSync(tmp, 'mine');
           fs.renameSync(tmp, target);
         }`,
        secret(),
        target,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((resolve) => swapper.stdout.once('data', resolve));
      const seen = new Set<string>();
      for (let i = 0; i < 2_000 && !(seen.has('mine') && seen.has('ACCESS_DENIED')); i++) {
        const read = await call('fs.readFile', { path: 'racy.txt' });
        seen.add(read.ok ? String(read.value) : read.error.code);
        const written = await call('fs.writeFile', { path: 'racy.txt', data: 'mine' });
        seen.add(written.ok ? 'mine' : written.error.code);
      }
      expect(seen.has('top secret')).toBe(false);
      expect(seen).toContain('ACCESS_DENIED');
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(await readFile(secret(), 'utf8')).toBe('top secret');
  });
});
