import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCapabilities } from '@agent-spaces/compiler';
import type { SpaceOptions } from '@agent-spaces/sdk';

/** A temp project with built runtime capabilities (`trainSchedule`, `vault`) and their host handlers. */
export interface TestProject {
  rootDir: string;
  outDir: string;
  handlers: NonNullable<SpaceOptions['handlers']>;
  /** Every `vault.deleteSecrets` call that reached its handler. */
  deletions: number[];
  cleanup(): Promise<void>;
}

const TRAINS = {
  name: 'trainSchedule',
  description: 'Train timetables of the city network',
  version: '1.0.0',
  functions: [
    {
      name: 'getSchedule',
      description: 'Get the scheduled trains of a station',
      parameters: { type: 'object', properties: { station: { type: 'string', description: 'Station name' } } },
      returns: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, hour: { type: 'integer' }, destination: { type: 'string' } },
          required: ['id', 'hour', 'destination'],
        },
      },
    },
    {
      name: 'getTrainDetails',
      description: 'Get details for a specific train',
      parameters: { type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] },
      returns: { type: 'object', properties: { id: { type: 'string' }, stops: { type: 'array', items: { type: 'string' } } }, required: ['id', 'stops'] },
    },
  ],
  executor: { kind: 'runtime' },
};

const VAULT = {
  name: 'vault',
  description: 'Secrets vault',
  functions: [
    {
      name: 'deleteSecrets',
      description: 'Delete every secret',
      requiresApproval: true,
      parameters: { type: 'object', properties: {} },
      returns: { type: 'object', properties: { deleted: { type: 'integer' } }, required: ['deleted'] },
    },
  ],
  executor: { kind: 'runtime' },
};

/** Writes `files` (plus the two capability definitions) into a temp folder and builds the capabilities. */
export async function createProject(files: Record<string, string> = {}): Promise<TestProject> {
  const rootDir = await mkdtemp(join(tmpdir(), 'agent-spaces-server-'));
  const all: Record<string, string> = {
    'capabilities/trains.json': JSON.stringify(TRAINS),
    'capabilities/vault.json': JSON.stringify(VAULT),
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    await mkdir(dirname(join(rootDir, name)), { recursive: true });
    await writeFile(join(rootDir, name), text);
  }
  const report = await buildCapabilities({ rootDir, sources: ['capabilities/*.json'] });
  if (report.totals.failed > 0) throw new Error(`capability build failed: ${JSON.stringify(report.capabilities)}`);
  const deletions: number[] = [];
  return {
    rootDir,
    outDir: report.outDir,
    deletions,
    handlers: {
      trainSchedule: {
        getSchedule: ({ station }: { station?: string }) => [
          { id: 'IC 1', hour: 7, destination: station === 'North' ? 'South' : 'North' },
          { id: 'IC 2', hour: 13, destination: 'Airport' },
        ],
        getTrainDetails: ({ trainId }: { trainId: string }) => ({ id: trainId, stops: ['Central', 'Airport'] }),
      },
      vault: {
        deleteSecrets: () => {
          deletions.push(Date.now());
          return { deleted: 3 };
        },
      },
    },
    cleanup: () => rm(rootDir, { recursive: true, force: true }),
  };
}
