import { describe, expect, it } from 'vitest';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { fileSchema } from '@agent-spaces/compiler/file-schemas';
import { TOOL_PERMISSIONS } from '@agent-spaces/sdk';
import { parseServerConfig, TOOL_GROUPS, type ServerSettings, type SpaceDefinition } from '../src/config.js';

const FILE = 'agent-spaces.config.json';

function problem(value: unknown): { code: string; key: unknown; message: string } {
  try {
    parseServerConfig(value, FILE);
  } catch (error) {
    if (!(error instanceof AgentSpacesError)) throw error;
    return { code: error.code, key: error.data?.key, message: error.message };
  }
  throw new Error('expected CONFIG_INVALID');
}

const tool = { name: 'book_flight', description: 'Books a flight', parameters: { type: 'object', properties: {} }, code: 'return 1;' };

describe('parseServerConfig', () => {
  it('returns the spaces and settings of a valid config, ignoring the other config keys', () => {
    const config = parseServerConfig(
      {
        capabilities: ['capabilities/*.json'],
        server: { timeoutSeconds: 60, maxSessions: 4, headlessMode: 'allow', rateLimit: { requests: 10, windowSeconds: 1 } },
        spaces: [
          {
            id: 'travel',
            name: 'Travel',
            skills: [{ id: 's', name: 'S', description: 'Be brief', enabled: true }],
            tools: [tool],
            prompts: [{ name: 'trip', template: 'Go to {city}', arguments: [{ name: 'city', required: true }] }],
          },
        ],
      },
      FILE,
    );
    expect(config.server).toEqual({ timeoutSeconds: 60, maxSessions: 4, headlessMode: 'allow', rateLimit: { requests: 10, windowSeconds: 1 } });
    expect(config.spaces[0]!.tools![0]!.name).toBe('book_flight');
    expect(config.spaces[0]!.prompts![0]!.arguments).toEqual([{ name: 'city', required: true }]);
  });

  it('accepts a config without server keys', () => {
    expect(parseServerConfig({ outDir: 'out' }, FILE)).toEqual({ server: {}, spaces: [] });
  });

  it('names the file and the field of a tool whose parameters root is not an object', () => {
    const p = problem({ spaces: [{ id: 'a', name: 'A', tools: [tool, { ...tool, name: 'x', parameters: { type: 'string' } }] }] });
    expect(p.code).toBe('CONFIG_INVALID');
    expect(p.key).toBe('spaces[0].tools[1].parameters.type');
    expect(p.message).toContain(FILE);
    expect(p.message).toContain('spaces[0].tools[1].parameters.type');
  });

  it('refuses unknown keys, bad ids and bad settings, naming each field', () => {
    expect(problem({ spaces: [{ id: 'a', name: 'A', colour: 'red' }] }).key).toBe('spaces[0].colour');
    expect(problem({ spaces: [{ id: 'a b', name: 'A' }] }).key).toBe('spaces[0].id');
    expect(problem({ spaces: [{ id: 'a', name: 'A', skills: [{ id: 's', name: 'S', description: '', enabled: 'yes' }] }] }).key).toBe(
      'spaces[0].skills[0].enabled',
    );
    expect(problem({ server: { maxSessions: 0 } }).key).toBe('server.maxSessions');
    expect(problem({ server: { maxSessionsPerClient: 1.5 } }).key).toBe('server.maxSessionsPerClient');
    expect(problem({ server: { disconnectGraceSeconds: -1 } }).key).toBe('server.disconnectGraceSeconds');
    expect(problem({ server: { clientIdleSeconds: 'soon' } }).key).toBe('server.clientIdleSeconds');
    expect(problem({ server: { unusedClientSeconds: 0 } }).key).toBe('server.unusedClientSeconds');
    expect(problem({ server: { maxUnusedClientsPerAddress: 0 } }).key).toBe('server.maxUnusedClientsPerAddress');
    expect(problem({ server: { maxUnusedClients: 2.5 } }).key).toBe('server.maxUnusedClients');
    expect(problem({ server: { maxSessionProcesses: 0 } }).key).toBe('server.maxSessionProcesses');
    expect(problem({ server: { requestTimeoutSeconds: -1 } }).key).toBe('server.requestTimeoutSeconds');
    expect(problem({ server: { headlessMode: 'ask' } }).key).toBe('server.headlessMode');
    for (const sessionProcesses of ['user', 'Principal', '', 1, null, ['client']]) {
      expect(problem({ server: { sessionProcesses } }).key).toBe('server.sessionProcesses');
    }
    expect(problem({ server: { port: 70000 } }).key).toBe('server.port');
    expect(problem({ spaces: {} }).key).toBe('spaces');
  });

  it('refuses duplicate space ids and tool or prompt names that clash', () => {
    expect(problem({ spaces: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] }).key).toBe('spaces[1].id');
    expect(problem({ spaces: [{ id: 'a', name: 'A', tools: [{ ...tool, name: 'execute' }] }] }).key).toBe('spaces[0].tools[0].name');
    expect(
      problem({ spaces: [{ id: 'a', name: 'A', tools: [tool] }, { id: 'b', name: 'B', tools: [tool] }] }).key,
    ).toBe('spaces[1].tools[0].name');
    expect(problem({ spaces: [{ id: 'a', name: 'A', prompts: [{ name: 'inject-a', template: 'x' }] }] }).key).toBe('spaces[0].prompts[0].name');
  });
});

describe('config.schema.json agrees with the server types', () => {
  const definitions = fileSchema('config').definitions as Record<string, { properties?: object; additionalProperties?: unknown }>;
  // `satisfies` makes a key added to a type without a line here a type error; the test makes it a schema property.
  const serverKeys = {
    timeoutSeconds: 1, maxSessions: 1, maxSessionsPerClient: 1, maxSessionProcesses: 1, sessionProcesses: 1, disconnectGraceSeconds: 1, clientIdleSeconds: 1,
    unusedClientSeconds: 1, maxUnusedClientsPerAddress: 1, maxUnusedClients: 1, requestTimeoutSeconds: 1, headlessMode: 1, host: 1, port: 1,
    allowedHosts: 1, allowedOrigins: 1, rateLimit: 1, databaseUrl: 1, redisUrl: 1, advertiseUrl: 1, auth: 1, agentsDir: 1, assignment: 1, a2a: 1,
    tools: 1,
  } satisfies Record<keyof ServerSettings, 1>;
  const spaceKeys = {
    id: 1, name: 1, description: 1, version: 1, systemPrompt: 1, skills: 1, capabilities: 1, tools: 1, prompts: 1, model: 1, toolPermission: 1, instructions: 1, directTools: 1, privacy: 1,
  } satisfies Record<keyof SpaceDefinition, 1>;

  it('has a property for every ServerSettings and SpaceDefinition key, and no other', () => {
    expect(Object.keys(definitions.server!.properties!).sort()).toEqual(Object.keys(serverKeys).sort());
    expect(Object.keys(definitions.agentSpace!.properties!).sort()).toEqual(['$schema', ...Object.keys(spaceKeys)].sort());
    const groups = (definitions.server!.properties as Record<string, { items?: { enum?: string[] } }>).tools!.items!.enum;
    expect(groups).toEqual(Object.keys(TOOL_GROUPS));
    expect(definitions.server!.additionalProperties).toBe(false);
  });

  it('offers the tool permissions the SDK knows', () => {
    expect((definitions.agentSpace!.properties as Record<string, { enum: unknown }>).toolPermission.enum).toEqual([...TOOL_PERMISSIONS]);
  });

  it('refuses typos in nested server and space keys with a suggestion, and accepts $schema in a space', () => {
    expect(problem({ server: { a2a: { enabled: true, maxTasksPerPrincipl: 2 } } }).message).toBe(`${FILE}: server.a2a.maxTasksPerPrincipl is not a known key — did you mean "maxTasksPerPrincipal"?`);
    expect(problem({ spaces: [{ id: 'a', name: 'A', skills: [{ id: 's', name: 'S', description: '', enabld: true }] }] }).key).toBe('spaces[0].skills[0].enabld');
    expect(parseServerConfig({ spaces: [{ $schema: 'x', id: 'a', name: 'A' }] }, FILE).spaces).toEqual([{ id: 'a', name: 'A' }]);
  });
});
