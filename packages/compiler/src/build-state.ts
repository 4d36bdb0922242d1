/**
 * `build-state.json`: what the last build produced (each capability's id, source file, compiler version and input
 * hashes) in one file, so a rebuild with nothing changed reads one file instead of every `meta.json`. It is a cache:
 * when it is missing or unreadable the same records are taken from the `meta.json` files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
