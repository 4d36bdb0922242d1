import { describe, expect, it } from 'vitest';
import { AgentSpacesError, createRedactor } from '@agent-spaces/capabilities';
import { createBridge } from '../src/index.js';
import { placeholderNames, secretsFromEnv } from '../src/redact.js';
import { memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;
const TOKEN = 'tok-9f8e7d6c5b4a';
const PASSWORD = 'hunter2-long';

describe('redaction', () => {
  const redactor = createRedactor(new Map([['API_TOKEN', TOKEN], ['DB_PASSWORD', PASSWORD], ['SHORT', 'ab']]));

  it('replaces every secret in text with [REDACTED:VAR], skipping values under 6 characters', () => {
    expect(redactor.text(`Bearer ${TOKEN}; pw=${PASSWORD}; ${TOKEN}; ab`)).toBe(
      'Bearer [REDACTED:API_TOKEN]; pw=[REDACTED:DB_PASSWORD]; [REDACTED:API_TOKEN]; ab',
    );
    expect(redactor.names).toEqual(['API_TOKEN', 'DB_PASSWORD']);
  });

  it('copies values deeply: arrays, objects (keys too), Maps, Sets, errors and cycles', () => {
    const cyclic: Record<string, unknown> = { token: TOKEN };
    cyclic.self = cyclic;
    const input = {
      list: [TOKEN, 1, null, { deep: `x${PASSWORD}x` }],
      [TOKEN]: 'as a key',
      map: new Map([[TOKEN, new Set([PASSWORD])]]),
      error: new Error(`failed with ${TOKEN}`),
      cyclic,
      date: new Date(0),
    };
    const out = redactor.value(input);
    const text = JSON.stringify(out, (_, v: unknown) => (v instanceof Map ? [...v] : v instanceof Set ? [...v] : v === out.cyclic ? '(cycle)' : v));
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PASSWORD);
    expect(out.list[3]).toEqual({ deep: 'x[REDACTED:DB_PASSWORD]x' });
    expect(Object.keys(out)).toContain('[REDACTED:API_TOKEN]');
    expect([...out.map.keys()]).toEqual(['[REDACTED:API_TOKEN]']);
    expect(out.error.message).toBe('failed with [REDACTED:API_TOKEN]');
    expect((out.cyclic as Record<string, unknown>).self).toBe(out.cyclic);
    expect(out.date).toBe(input.date);
    expect(input.list[0]).toBe(TOKEN);
  });

  it('returns a value that holds no secret as it is, without copying', () => {
    const clean = { list: ['a', { b: 'c' }], map: new Map([['k', 'v']]) };
    expect(redactor.value(clean)).toBe(clean);
  });

  it('finds ${VAR} and ${VAR:-default} placeholder names anywhere in a spec', () => {
    expect(placeholderNames({ url: 'https://x/${HOST}', headers: { authorization: 'Bearer ${API_TOKEN}' }, args: ['${A:-1}', 'plain'] })).toEqual([
      'A',
      'API_TOKEN',
      'HOST',
    ]);
  });

  it('reads only the set, non-empty variables', () => {
    expect([...secretsFromEnv(['A', 'B', 'C'], { A: 'value-a', B: '' })]).toEqual([['A', 'value-a']]);
  });

  it('redacts results, error messages and error data a capability returns through the bridge', async () => {
    const leaky = memoryCapability('leaky', [
      { name: 'echo', run: () => ({ header: `Authorization: Bearer ${TOKEN}`, nested: [PASSWORD] }) },
      {
        name: 'fail',
        run: () => {
          throw new AgentSpacesError('HANDLER_ERROR', `upstream rejected ${TOKEN}`, { body: `password=${PASSWORD}` });
        },
      },
      {
        name: 'crash',
        run: () => {
          throw new Error(`boom ${TOKEN}`);
        },
      },
    ]);
    const bridge = createBridge({ capabilities: [leaky], redactor });
    const outcomes = await Promise.all(['echo', 'fail', 'crash'].map((fn) => bridge.call(msg('leaky', fn, {}), signal)));
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PASSWORD);
    expect(outcomes[0]).toEqual({ ok: true, value: { header: 'Authorization: Bearer [REDACTED:API_TOKEN]', nested: ['[REDACTED:DB_PASSWORD]'] } });
    expect(text).toContain('upstream rejected [REDACTED:API_TOKEN]');
    expect(text).toContain('password=[REDACTED:DB_PASSWORD]');
    expect(text).toContain('boom [REDACTED:API_TOKEN]');
  });
});
