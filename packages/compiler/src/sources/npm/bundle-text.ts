/** esbuild over an entry given as text: the one place an npm capability's bundle failure becomes diagnostics. */
import { relative, resolve } from 'node:path';
import type { Diagnostic } from '@agent-spaces/capabilities';
import type { BuildFailure, BuildOptions, Message } from 'esbuild';
import { IMPORT_REFUSED } from './confine.js';

/** The bundled module, or the problems that stopped it. */
export type Bundle = { ok: true; code: string } | { ok: false; diagnostics: Diagnostic[] };

/** What {@link bundleText} bundles, and how. */
export interface TextEntry {
  /** The entry module's source. */
  contents: string;
  loader: 'js' | 'ts';
  /** Project folder: esbuild's working folder. */
  rootDir: string;
  /** Folder the entry's imports are resolved from (default `rootDir`). */
  resolveDir?: string;
  /** Names the entry in diagnostics (`file`) and in esbuild's messages: its path relative to `rootDir`. */
  label: string;
}

/** The absolute path esbuild gives the entry of `entry`: its `resolveDir` joined with its `sourcefile`. */
export function entryPath(entry: TextEntry): string {
  return resolve(entry.rootDir, entry.label);
}

/**
 * Bundles `entry` with esbuild and `options` (target, format, plugins) into one module, without writing it. Each
 * esbuild error becomes a diagnostic naming its file and line: `IMPORT_REFUSED` for a read the read scope refused
 * (`confine.ts`), else `INVALID_DEFINITION`; a plugin's error is its own text, which names its place. Anything but a
 * `BuildFailure` is thrown.
 */
export async function bundleText(entry: TextEntry, options: BuildOptions): Promise<Bundle> {
  const { contents, loader, rootDir, label } = entry;
  const resolveDir = entry.resolveDir ?? rootDir;
  const { build } = await import('esbuild');
  try {
    const result = await build({
      stdin: { contents, resolveDir, sourcefile: relative(resolveDir, entryPath(entry)), loader },
      absWorkingDir: rootDir,
      ...options,
      legalComments: 'none',
      write: false,
      logLevel: 'silent',
    });
    return { ok: true, code: result.outputFiles[0]?.text ?? '' };
  } catch (error) {
    const errors = (error as Partial<BuildFailure>).errors;
    if (!Array.isArray(errors)) throw error;
    // A glob import refused once per file it reaches says the same thing each time: say it once.
    const messages = new Map(errors.map((e) => diagnostic(e, label)).map((d) => [d.message, d]));
    return { ok: false, diagnostics: [...messages.values()] };
  }
}

function diagnostic(e: Message, label: string): Diagnostic {
  const where = e.location ? ` (${e.location.file}:${e.location.line})` : '';
  if (e.detail === IMPORT_REFUSED) return { code: 'IMPORT_REFUSED', severity: 'error', file: label, message: `${e.text}${where}` };
  return { code: 'INVALID_DEFINITION', severity: 'error', file: label, message: e.pluginName ? e.text : `${e.text}${where}` };
}
