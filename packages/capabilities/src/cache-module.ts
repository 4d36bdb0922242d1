import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a module that a child process or worker thread loads comes from ({@link moduleEntry}). */
export interface ModuleEntryOptions {
  /** The file the build writes (`dist/…`); used when it exists. */
  built: URL;
  /** Folder for the bundle made at run time, where its dependencies resolve (a package's `node_modules/.cache/…/`). */
  cacheDir: URL;
  /** The bundle's file name before its content hash (`process-child`). */
  name: string;
  /** Bundles the module from the TypeScript sources. */
  bundle: () => Promise<string>;
}

/**
 * The path of a module for a child process or worker thread to load, found once per process: the built file when
 * there is one, else (running from the sources) `bundle()` written as `<cacheDir><name>-<sha256, 16 hex>.mjs`, whole
 * then renamed, so processes bundling at the same time never read half a file. A failure is not kept: the next call
 * tries again.
 */
export function moduleEntry(options: ModuleEntryOptions): () => Promise<string> {
  let entry: Promise<string> | undefined;
  const locate = async (): Promise<string> => {
    if (existsSync(options.built)) return fileURLToPath(options.built);
    const code = await options.bundle();
    const dir = fileURLToPath(options.cacheDir);
    const file = `${dir}${options.name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, code);
      renameSync(partial, file);
    }
    return file;
  };
  return () =>
    (entry ??= locate().catch((error: unknown) => {
      entry = undefined;
      throw error;
    }));
}
