import { describe, expect, it } from 'vitest';
import { emitProxy } from '../../src/emit/proxy.js';
import { capabilityWith } from '../helpers.js';

describe('emitProxy', () => {
  it('writes the runtime contract: one frozen object calling the bridge, and each function exported alone', () => {
    const capability = { ...capabilityWith({}), id: 'train-schedule', exportName: 'trainSchedule' };
    const fn = capability.functions[0]!;
    capability.functions = [
      { ...fn, name: 'getSchedule', sourceName: 'get_schedule' },
      { ...fn, name: 'delete_', sourceName: 'delete' },
    ];
    expect(emitProxy(capability)).toBe(`import { call } from 'agent-spaces:bridge';
export const trainSchedule = Object.freeze({
  getSchedule: (params) => call("train-schedule", "getSchedule", params),
  delete_: (params) => call("train-schedule", "delete_", params),
});
export const getSchedule = trainSchedule.getSchedule;
export const delete_ = trainSchedule.delete_;
`);
  });
});
