import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SpaceDefinition } from '../src/config.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const TRAVEL: SpaceDefinition = {
  id: 'travel',
  name: 'Travel',
  tools: [
    {
      name: 'book_trip',
      description: 'Books seats to a destination',
      parameters: {
        type: 'object',
        properties: { destination: { type: 'string' }, passengers: { type: 'integer', minimum: 1 } },
        required: ['destination'],
        additionalProperties: false,
      },
      code: [
        "import { trainSchedule } from '@capabilities/trains';",
        'const trips = await trainSchedule.getSchedule({ station: input.destination });',
        'return `${input.passengers ?? 1} seat(s) to ${input.destination} on ${trips[0]!.id}`;',
      ].join('\n'),
    },
    {
      name: 'train_stops',
      description: 'Stops of a train',
      parameters: { type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] },
      code: 'tools/train-stops.ts',
    },
    {
      name: 'typed',
      description: 'Misuses its input',
      parameters: { type: 'object', properties: { count: { type: 'integer' } } },
      code: "import { trainSchedule } from '@capabilities/trains';\nconst text: string = input.count;\nexport default text;",
    },
    {
      name: 'hostile_schema',
      description: 'A schema whose text tries to break out of the type of `input`',
      parameters: {
        type: 'object',
        title: 'Input}; throw new Error("title"); type X = {',
        properties: {
          '};throw new Error("key");//': { type: 'string', description: '*/ throw new Error("doc"); /*' },
          mode: { enum: ['*/', '"); throw new Error("enum"); ("', '\n}'] },
          trip: { $ref: '#/definitions/Trip' },
        },
        definitions: { Trip: { type: 'object', title: 'Trip', properties: { id: { type: 'string' } }, required: ['id'] } },
      },
      code: [
        'interface Trip { other: number }',
        'const mine: Trip = { other: 1 };',
        "const id: string = input.trip?.id ?? 'none';",
        'return [mine.other, id, input.mode ?? null, input[\'};throw new Error("key");//\'] ?? null];',
      ].join('\n'),
    },
    {
      name: 'broken',
      description: 'Always fails',
      parameters: { type: 'object', properties: {} },
      code: "console.log('trying');\nthrow new Error('out of order');",
    },
  ],
  prompts: [
    {
      name: 'plan_trip',
      description: 'Plan a trip',
      arguments: [{ name: 'city', required: true, description: 'Where to' }, { name: 'day' }],
      template: 'Use {name} to plan a trip to {city} on {day}. Keep {unknown}.',
    },
  ],
};

const TRAIN_STOPS = `import { trainSchedule } from '@capabilities/trains';
const details = await trainSchedule.getTrainDetails({ trainId: input.trainId });
export default { train: details.id, stops: details.stops };
`;

let project: TestProject;
let client: Client;

beforeAll(async () => {
  project = await createProject({ 'tools/train-stops.ts': TRAIN_STOPS });
  client = await connectInMemory(createCodeModeServer({ spaces: [TRAVEL], space: { rootDir: project.rootDir, handlers: project.handlers } }));
});

afterAll(async () => {
  await client?.close();
  await project?.cleanup();
});

describe('user-defined tools', () => {
  it('are listed with their JSON Schema as input schema', async () => {
    const { tools } = await client.listTools();
    const book = tools.find((t) => t.name === 'book_trip')!;
    expect(book.description).toBe('Books seats to a destination');
    expect(book.inputSchema).toEqual(TRAVEL.tools![0]!.parameters);
  });

  it('run their inline script with the validated arguments as `input`', async () => {
    const answer = await callTool(client, 'book_trip', { destination: 'North', passengers: 2 });
    expect(answer).toMatchObject({ isError: false, text: '2 seat(s) to North on IC 1' });
  });

  it('run a .ts file relative to the project folder', async () => {
    const answer = await callTool(client, 'train_stops', { trainId: 'IC 9' });
    expect(answer.body).toEqual({ train: 'IC 9', stops: ['Central', 'Airport'] });
  });

  it('name missing and wrong arguments in an INVALID_ARGUMENTS error', async () => {
    const missing = await callTool(client, 'book_trip', {});
    expect(missing).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS', data: { errors: [{ field: 'destination', problem: 'is required' }] } } });
    expect(missing.body.message).toContain('"destination" is required');
    const wrong = await callTool(client, 'book_trip', { destination: 'North', passengers: 'two', seat: 'window' });
    const fields = wrong.body.data.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['passengers', 'seat']);
  });

  it('typecheck the script against the schema-typed `input`, reporting the script’s own line', async () => {
    const answer = await callTool(client, 'typed', { count: 3 });
    expect(answer).toMatchObject({ isError: true, body: { code: 'TYPE_ERROR' } });
    expect(answer.body.data.diagnostics).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('type `input` with the compiler’s schema converter, beside the script’s own names, with no schema text breaking out', async () => {
    const args = { trip: { id: 'IC 1' }, mode: '*/', '};throw new Error("key");//': 'k' };
    const answer = await callTool(client, 'hostile_schema', args);
    expect(answer).toMatchObject({ isError: false, body: [1, 'IC 1', '*/', 'k'] });
  });

  it('return a failing script as an error result with its logs', async () => {
    const answer = await callTool(client, 'broken');
    expect(answer).toMatchObject({ isError: true, body: { code: 'SCRIPT_ERROR', logs: ['trying'] } });
  });
});

describe('prompt templates', () => {
  it('are listed with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.find((p) => p.name === 'plan_trip')).toEqual({
      name: 'plan_trip',
      description: 'Plan a trip',
      arguments: [
        { name: 'city', description: 'Where to', required: true },
        { name: 'day', required: false },
      ],
    });
  });

  it('fill {param} and {name}, leave an omitted optional argument empty and unknown placeholders as written', async () => {
    const got = await client.getPrompt({ name: 'plan_trip', arguments: { city: 'Paris' } });
    const content = got.messages[0]!.content;
    expect(content.type === 'text' && content.text).toBe('Use plan_trip to plan a trip to Paris on . Keep {unknown}.');
  });

  it('refuse missing or unknown arguments, naming them', async () => {
    const error = await client.getPrompt({ name: 'plan_trip', arguments: { day: 'Monday', mood: 'happy' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toContain('"city" is required');
    expect((error as McpError).message).toContain('"mood" is not a known argument');
    await expect(client.getPrompt({ name: 'ghost' })).rejects.toThrow(/No prompt "ghost"/);
  });
});
