import type { SpaceOptions } from '@agent-spaces/sdk';
import { makeProject } from '../../../../test/fixtures/project.js';

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

/** A project of `files` plus the two capability definitions, built (test/fixtures/project.ts removes it after use). */
export async function createProject(files: Record<string, string> = {}): Promise<TestProject> {
  const project = await makeProject({ 'capabilities/trains.json': TRAINS, 'capabilities/vault.json': VAULT, ...files });
  const report = await project.build({ sources: ['capabilities/*.json'] });
  if (report.totals.failed > 0) throw new Error(`capability build failed: ${JSON.stringify(report.capabilities)}`);
  const deletions: number[] = [];
  return {
    rootDir: project.dir,
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
    cleanup: () => project.remove(),
  };
}
