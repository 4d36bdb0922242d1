/**
 * `build-state.json`: what the last build produced (each capability's id, source file, compiler version and input
 * hashes) in one file, so a rebuild with nothing changed reads one file instead of every `meta.json`. It is a cache:
 * when it is missing or unreadable the same records are taken from the `meta.json` files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { OUTPUT_FILES, capabilitiesDir, type CapabilityMeta } from '@agent-spaces/capabilities';
import { listCapabilities } from './catalog.js';

/** One capability in the output folder and what it was built from. */
export interface BuiltRecord {
  id: string;
  /** Source file, relative to the config folder. */
  file: string;
  compilerVersion?: string;
  /** sha256 of every input by path relative to the config folder. */
  inputs?: Record<string, string>;
}

const STATE_FILE = OUTPUT_FILES.buildState;
const STATE_VERSION = 1;

/** The record of a built capability's `meta.json`. */
export function recordOf(meta: CapabilityMeta): BuiltRecord {
  return {
    id: meta.id,
    file: meta.source.file,
    ...(meta.compilerVersion !== undefined ? { compilerVersion: meta.compilerVersion } : {}),
    ...(meta.inputs !== undefined ? { inputs: meta.inputs } : {}),
  };
}

function isRecord(value: unknown): value is BuiltRecord {
  const r = value as Partial<BuiltRecord> | null;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.file === 'string';
}

function readState(outDir: string): BuiltRecord[] | undefined {
  try {
    const state = JSON.parse(readFileSync(join(outDir, STATE_FILE), 'utf8')) as { version?: unknown; capabilities?: unknown };
    if (state.version !== STATE_VERSION || !Array.isArray(state.capabilities) || !state.capabilities.every(isRecord)) return undefined;
    return state.capabilities;
  } catch {
    return undefined;
  }
}

/**
 * The capabilities the output folder holds, from `build-state.json` (restricted to folders that still exist) or,
 * without it, from every `meta.json`. Read synchronously: a few small files, and the no-change rebuild is timed.
 */
export async function readBuiltRecords(outDir: string): Promise<BuiltRecord[]> {
  let folders: Set<string>;
  try {
    folders = new Set(readdirSync(capabilitiesDir(outDir)));
  } catch {
    return [];
  }
  const state = readState(outDir);
  if (state) return state.filter((record) => folders.has(record.id));
  return (await listCapabilities(outDir)).map(recordOf);
}

/**
 * What the last build in `outDir` read, by absolute path (resolved against `rootDir`), each with the sources
 * (relative to `rootDir`) that read it: every key of the capabilities' inputs records (the files a source read; a config
 * source records its label, `mcpServers.memory`, instead, and the skills their folder too). A source that fails keeps
 * its last good record, so what it read then is still listed.
 */
export async function readBuildInputs(outDir: string, rootDir: string): Promise<Map<string, string[]>> {
  const readers = new Map<string, string[]>();
  for (const { file, inputs } of await readBuiltRecords(outDir)) {
    for (const input of Object.keys(inputs ?? {})) {
      const path = resolve(rootDir, input);
      const sources = readers.get(path) ?? [];
      if (!sources.includes(file)) readers.set(path, [...sources, file]);
    }
  }
  return readers;
}

/** True when inputs record `a` (absent when there was none) holds exactly the entries of `b`. */
export function sameInputs(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  return a !== undefined && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => a[key] === value);
}

/** Saves `build-state.json` for `records` into `outDir`, unless the file already says exactly that. */
export async function writeBuildState(outDir: string, records: readonly BuiltRecord[]): Promise<void> {
  const capabilities = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const text = `${JSON.stringify({ version: STATE_VERSION, capabilities })}\n`;
  let current: string | undefined;
  try {
    current = readFileSync(join(outDir, STATE_FILE), 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) await writeFile(join(outDir, STATE_FILE), text);
}
