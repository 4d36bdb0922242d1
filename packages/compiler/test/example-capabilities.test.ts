import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDefineToolSource } from '../src/sources/define-tool.js';
import { only, REPO, useDefineToolProject } from './define-tool-project.js';
import { sourceContext } from './helpers.js';

const project = useDefineToolProject();

describe('the example capabilities', () => {
  async function readExample(name: string) {
    const context = { ...sourceContext(REPO), outDir: join(project.root, 'examples-out') };
    const result = await readDefineToolSource(join(REPO, 'capabilities', name), context);
    const capability = only(result);
    const hostFile = join(project.root, `host-${capability.id}.mjs`);
    await writeFile(hostFile, result.hostModules[capability.id]!);
    const host = (await import(hostFile)) as Record<string, { functions: Record<string, Record<string, (p: unknown) => unknown>> }>;
    const definition = host[(capability.executor as { export: string }).export]!;
    const call = (fn: string, params: unknown) => definition.functions[fn]!.handler!(params);
    return { capability, call, definition };
  }

  it('reads train-schedule and answers from the local timetable', async () => {
    const { capability, call } = await readExample('train-schedule.ts');
    expect(capability.functions.map((fn) => fn.returnsType)).toEqual(['Trip[]', 'TrainDetails']);
    expect(capability.declarations).toMatch(/^\/\*\* One departure in the timetable\. \*\/\nexport interface Trip \{/);
    const trips = (await call('getSchedule', { station: 'Central' })) as Array<{ id: string; hour: number }>;
    expect(trips.length).toBeGreaterThanOrEqual(12);
    expect(Math.min(...trips.map((t) => t.hour))).toBeGreaterThanOrEqual(5);
    expect(Math.max(...trips.map((t) => t.hour))).toBeLessThanOrEqual(22);
    expect(Object.keys(trips[0]!).sort()).toEqual(['destination', 'hour', 'id', 'minute', 'platform']);
    const sunday = (await call('getSchedule', { station: 'central', date: '2025-01-19' })) as unknown[];
    expect(sunday.length).toBeLessThan(trips.length);
    expect(await call('getTrainDetails', { trainId: trips[0]!.id })).toEqual({
      id: trips[0]!.id,
      operator: expect.any(String),
      stops: expect.arrayContaining(['Central']),
    });
    await expect(call('getTrainDetails', { trainId: 'nope' })).rejects.toThrow('No train with id "nope"');
  });

  it('reads notes, which keeps notes in memory on the host', async () => {
    const { capability, call } = await readExample('notes.ts');
    expect(capability.functions.map((fn) => [fn.name, fn.returnsType])).toEqual([
      ['create', 'Note'],
      ['list', 'Note[]'],
    ]);
    const note = await call('create', { title: 'Morning Trains', content: '05:42 - Airport' });
    expect(note).toMatchObject({ id: 'note-1', title: 'Morning Trains' });
    expect(await call('list', {})).toEqual([note]);
  });

  it('reads company-crm with an approval-gated createTicket whose message comes from the host', async () => {
    const { capability, call, definition } = await readExample('company-crm.ts');
    expect(capability).toMatchObject({ id: 'company-crm', exportName: 'crm' });
    expect(capability.functions[1]).toMatchObject({ name: 'createTicket', requiresApproval: true, hostApprovalMessage: true });
    expect(capability.functions[1]!.approvalMessage).toBeUndefined();
    expect(capability.declarations).toContain("export type TicketPriority = 'low' | 'medium' | 'high';");
    const customers = (await call('searchCustomers', { query: 'acme' })) as Array<{ id: string; company: string }>;
    expect(customers.length).toBeGreaterThan(1);
    expect(customers.every((c) => c.company.toLowerCase().includes('acme'))).toBe(true);
    const params = { customerId: customers[0]!.id, subject: 'Integration issue', priority: 'high' };
    expect(definition.functions.createTicket!.approvalMessage!(params)).toBe(`Create high ticket for customer ${customers[0]!.id}?`);
    expect(await call('createTicket', params)).toMatchObject({ id: 'T-1001', status: 'open', priority: 'high' });
  });

  it('has a deterministic local weather handler for the JSON weather capability', async () => {
    const { get_weather } = (await import(join(REPO, 'capabilities/weather.handlers.mjs'))) as {
      get_weather: (p: { location: string; unit?: string }) => Promise<unknown>;
    };
    expect(await get_weather({ location: 'San Francisco', unit: 'celsius' })).toEqual({
      temperature: 17,
      unit: 'celsius',
      description: 'Fog in the morning, sunny later',
    });
    expect(await get_weather({ location: 'san francisco', unit: 'fahrenheit' })).toMatchObject({ temperature: 63 });
    await expect(get_weather({ location: 'Atlantis' })).rejects.toThrow('No weather data for "Atlantis"');
  });
});
