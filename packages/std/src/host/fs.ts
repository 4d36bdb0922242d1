import { mkdir, readdir, rm } from 'node:fs/promises';
import { constants, type Dirent, type Stats } from 'node:fs';
import { AgentSpacesError, isAgentSpacesError, type BooleanSchema, type ObjectSchema, type StringSchema } from '@agent-spaces/capabilities';
import type { HostFunction } from '@agent-spaces/bridge';
import type { DirEntry, FileEncoding, FileStat, FileType } from '../sandbox/types.js';
import { stdFunction } from './define.js';
import type { Workspace } from './workspace.js';

const path: StringSchema = { type: 'string', minLength: 1 };
const encoding: StringSchema = { type: 'string', enum: ['utf8', 'base64'] };
const flag: BooleanSchema = { type: 'boolean' };

const pathOnly: ObjectSchema = { type: 'object', properties: { path }, required: ['path'], additionalProperties: false };
const withData: ObjectSchema = {
  type: 'object',
  properties: { path, data: { type: 'string' }, encoding },
  required: ['path', 'data'],
  additionalProperties: false,
};

type PathParams = { path: string };
type DataParams = PathParams & { data: string; encoding?: FileEncoding };

const { O_RDONLY, O_WRONLY, O_CREAT, O_APPEND } = constants;

/**
 * `fs.*` on the host: every path is resolved inside `workspace`, and errors name the agent's path, never a host path.
 * Files are read and written through a descriptor the workspace has checked (no symlink at its end, not a file with
 * more than one hard link). Unless `write`, the functions that change the workspace fail with `ACCESS_DENIED` before
 * touching it.
 */
export function fsFunctions(workspace: Workspace, write: boolean): HostFunction[] {
  const op = <P extends PathParams>(name: string, schema: ObjectSchema, run: (params: P) => Promise<unknown>, writes = false) =>
    stdFunction<P>(name, schema, async (params) => {
      try {
        if (writes && !write) {
          throw new AgentSpacesError('ACCESS_DENIED', `${name}: the workspace is read-only (std.fs.write is false)`, { path: params.path });
        }
        return await run(params);
      } catch (error) {
        throw fsError(name, params.path, error);
      }
    });
  const withFile = workspace.withFile.bind(workspace);

  return [
    op<PathParams & { encoding?: FileEncoding }>(
      'fs.readFile',
      { type: 'object', properties: { path, encoding }, required: ['path'], additionalProperties: false },
      ({ path, encoding = 'utf8' }) => withFile('fs.readFile', path, O_RDONLY, (handle) => handle.readFile({ encoding })),
    ),
    op<DataParams>(
      'fs.writeFile',
      withData,
      ({ path, data, encoding = 'utf8' }) =>
        // Truncated only once the descriptor is known to be the workspace's own file (O_TRUNC would cut another's first).
        withFile('fs.writeFile', path, O_WRONLY | O_CREAT, async (handle) => {
          await handle.truncate(0);
          await handle.writeFile(Buffer.from(data, encoding));
          return null;
        }),
      true,
    ),
    op<DataParams>(
      'fs.appendFile',
      withData,
      ({ path, data, encoding = 'utf8' }) =>
        withFile('fs.appendFile', path, O_WRONLY | O_CREAT | O_APPEND, async (handle) => {
          await handle.appendFile(Buffer.from(data, encoding));
          return null;
        }),
      true,
    ),
    op<PathParams>('fs.readdir', pathOnly, async ({ path }) => {
      const entries = await readdir(await workspace.resolve('fs.readdir', path), { withFileTypes: true });
      return entries.map((entry): DirEntry => ({ name: entry.name, type: typeOf(entry) })).sort((a, b) => (a.name < b.name ? -1 : 1));
    }),
    op<PathParams>('fs.stat', pathOnly, async ({ path }): Promise<FileStat> => {
      const stats = await workspace.stat('fs.stat', path);
      return { type: typeOf(stats), size: stats.size, modifiedAt: stats.mtime.toISOString(), createdAt: stats.birthtime.toISOString() };
    }),
    op<PathParams & { recursive?: boolean }>(
      'fs.mkdir',
      { type: 'object', properties: { path, recursive: flag }, required: ['path'], additionalProperties: false },
      async ({ path, recursive = true }) => {
        await mkdir(await workspace.resolve('fs.mkdir', path), { recursive });
        return null;
      },
      true,
    ),
    op<PathParams & { recursive?: boolean; force?: boolean }>(
      'fs.rm',
      { type: 'object', properties: { path, recursive: flag, force: flag }, required: ['path'], additionalProperties: false },
      async ({ path, recursive = false, force = false }) => {
        // The entry itself: a symlink or a hard link is removed as a name, leaving what it leads to alone.
        await rm(await workspace.resolveEntry('fs.rm', path), { recursive, force });
        return null;
      },
      true,
    ),
    op<PathParams>('fs.exists', pathOnly, ({ path }) =>
      workspace.stat('fs.exists', path).then(
        () => true,
        (error: unknown) => {
          if (isAgentSpacesError(error)) throw error;
          return false;
        },
      ),
    ),
  ];
}

function typeOf(entry: Dirent | Stats): FileType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

const PROBLEMS: Record<string, string> = {
  ENOENT: 'does not exist',
  EEXIST: 'already exists',
  EISDIR: 'is a directory',
  ENOTDIR: 'is not a directory (or a part of it is a file)',
  ENOTEMPTY: 'is a directory that is not empty (pass recursive: true)',
  EACCES: 'is not accessible to the host',
  EPERM: 'is not accessible to the host',
};

/** Rewrites a Node error so the message names the agent's path and not the host's folders; keeps `errno` in `data`. */
function fsError(fn: string, path: string, error: unknown): AgentSpacesError {
  if (isAgentSpacesError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  const problem = Object.hasOwn(PROBLEMS, code) ? PROBLEMS[code] : `failed (${code})`;
  return new AgentSpacesError('HANDLER_ERROR', `${fn}: '${path}' ${problem}`, { path, errno: code });
}
