import { access, appendFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
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

/**
 * `fs.*` on the host: every path is resolved inside `workspace`, and errors name the agent's path, never a host path.
 * Unless `write`, the functions that change the workspace fail with `ACCESS_DENIED` before touching it.
 */
export function fsFunctions(workspace: Workspace, write: boolean): HostFunction[] {
  const checkWrite = (name: string, path: string) => {
    if (!write) throw new AgentSpacesError('ACCESS_DENIED', `${name}: the workspace is read-only (std.fs.write is false)`, { path });
  };
  const op = <P extends PathParams>(name: string, schema: ObjectSchema, run: (real: string, params: P) => Promise<unknown>, writes = false) =>
    stdFunction<P>(name, schema, async (params) => {
      try {
        if (writes) checkWrite(name, params.path);
        return await run(await workspace.resolve(name, params.path), params);
      } catch (error) {
        throw fsError(name, params.path, error);
      }
    });

  return [
    op<PathParams & { encoding?: FileEncoding }>(
      'fs.readFile',
      { type: 'object', properties: { path, encoding }, required: ['path'], additionalProperties: false },
      (real, { encoding = 'utf8' }) => readFile(real, { encoding }),
    ),
    op<DataParams>(
      'fs.writeFile',
      withData,
      async (real, { data, encoding = 'utf8' }) => {
        await writeFile(real, Buffer.from(data, encoding));
        return null;
      },
      true,
    ),
    op<DataParams>(
      'fs.appendFile',
      withData,
      async (real, { data, encoding = 'utf8' }) => {
        await appendFile(real, Buffer.from(data, encoding));
        return null;
      },
      true,
    ),
    op<PathParams>('fs.readdir', pathOnly, async (real) => {
      const entries = await readdir(real, { withFileTypes: true });
      return entries.map((entry): DirEntry => ({ name: entry.name, type: typeOf(entry) })).sort((a, b) => (a.name < b.name ? -1 : 1));
    }),
    op<PathParams>('fs.stat', pathOnly, async (real): Promise<FileStat> => {
      const stats = await stat(real);
      return { type: typeOf(stats), size: stats.size, modifiedAt: stats.mtime.toISOString(), createdAt: stats.birthtime.toISOString() };
    }),
    op<PathParams & { recursive?: boolean }>(
      'fs.mkdir',
      { type: 'object', properties: { path, recursive: flag }, required: ['path'], additionalProperties: false },
      async (real, { recursive = true }) => {
        await mkdir(real, { recursive });
        return null;
      },
      true,
    ),
    stdFunction<PathParams & { recursive?: boolean; force?: boolean }>(
      'fs.rm',
      { type: 'object', properties: { path, recursive: flag, force: flag }, required: ['path'], additionalProperties: false },
      async ({ path: agentPath, recursive = false, force = false }) => {
        try {
          checkWrite('fs.rm', agentPath);
          await rm(await workspace.resolveEntry('fs.rm', agentPath), { recursive, force });
          return null;
        } catch (error) {
          throw fsError('fs.rm', agentPath, error);
        }
      },
    ),
    op<PathParams>('fs.exists', pathOnly, (real) =>
      access(real).then(
        () => true,
        () => false,
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
