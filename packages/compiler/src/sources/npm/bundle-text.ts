/** esbuild over an entry given as text: the one place an npm capability's bundle failure becomes diagnostics. */
import type { Diagnostic } from '@agent-spaces/capabilities';
import type { BuildFailure, BuildOptions } from 'esbuild';

/** The bundled module, or the problems that stopped it. */
export type Bundle = { ok: true; code: string } | { ok: false; diagnostics: Diagnostic[] };

/** What {@link bundleText} bundles, and how. */
export interface TextEntry {
  /** The entry module's source. */
  contents: string;
  loader: 'js' | 'ts';
  /** Folder imports are resolved from. */
  rootDir: string;
  /** Names the entry in diagnostics (`file`) and in esbuild's messages. */
  label: string;
}

/**
 * Bundles `entry` with esbuild and `options` (target, format, plugins) into one module, without writing it. Each
 * esbuild error becomes an `INVALID_DEFINITION` diagnostic naming its file and line; a plugin's error is its own
 * text, which names its place. Anything but a `BuildFailure` is thrown.
 */
export async function bundleText(entry: TextEntry, options: BuildOptions): Promise<Bundle> {
  const { contents, loader, rootDir, label } = entry;
  const { build } = await import('esbuild');
  try {
    const result = await build({
      stdin: { contents, resolveDir: rootDir, sourcefile: label, loader },
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
    return {
      ok: false,
      diagnostics: errors.map((e) => ({
        code: 'INVALID_DEFINITION',
        severity: 'error',
        file: label,
        message: e.location && !e.pluginName ? `${e.text} (${e.location.file}:${e.location.line})` : e.text,
      })),
    };
  }
}
