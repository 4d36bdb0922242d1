import { describe, expect, it } from 'vitest';
import { UserCredentials, createGrowingRedactor, expandUserPlaceholders, userPlaceholderNames, type UserSecrets } from '../src/index.js';

describe('a growing redactor', () => {
  it('redacts values added while in use, one name for several values, short ones never', () => {
    const redactor = createGrowingRedactor(new Map([['API', 'api-secret-1']]));
    expect(redactor.text('api-secret-1 alice-token-1')).toBe('[REDACTED:API] alice-token-1');
    redactor.add('user:TOKEN', 'alice-token-1');
    redactor.add('user:TOKEN', 'bob-token-22');
    redactor.add('user:TOKEN', 'abc');
    expect(redactor.value({ a: 'alice-token-1', b: 'bob-token-22', c: 'abc' })).toEqual({ a: '[REDACTED:user:TOKEN]', b: '[REDACTED:user:TOKEN]', c: 'abc' });
    expect(redactor.names).toEqual(['API', 'user:TOKEN']);
  });

  it('keeps the `limit` most recently added values', () => {
    const redactor = createGrowingRedactor(new Map(), 2);
    for (const value of ['first-value', 'second-value', 'third-value']) redactor.add('user:T', value);
    expect(redactor.text('first-value second-value third-value')).toBe('first-value [REDACTED:user:T] [REDACTED:user:T]');
  });
});

describe('${user:NAME} placeholders', () => {
  it('are found deeply and expanded in one pass beside ${VAR}', () => {
    expect(userPlaceholderNames({ auth: { token: '${user:B} ${user:A}' }, headers: ['${user:A}', '${VAR}', '${user:bad-name}'] })).toEqual(['A', 'B']);
    expect(expandUserPlaceholders('x ${user:A} y', (s) => s.toUpperCase(), () => '${y}')).toBe('X ${y} Y');
  });
});

describe('UserCredentials', () => {
  const store: UserSecrets = { source: '/etc/secrets.json', get: async (principal, name) => (principal.id === 'user:a' && name === 'T' ? 'value-of-a' : undefined) };

  it('hands each value found to onResolved before returning it', async () => {
    const heard: [string, string][] = [];
    const values = await new UserCredentials(store, (name, value) => heard.push([name, value])).resolve({ id: 'user:a', scopes: [], groups: [] }, ['T'], 'x');
    expect([...values]).toEqual([['T', 'value-of-a']]);
    expect(heard).toEqual([['user:T', 'value-of-a']]);
  });

  it.each([
    ['a principal without it', store, { id: 'user:b', scopes: [], groups: [] }, 'user:b'],
    ['no principal (local)', store, undefined, 'local'],
    ['no store', undefined, { id: 'user:a', scopes: [], groups: [] }, 'user:a'],
  ])('fails CREDENTIAL_MISSING for %s, naming what to set where', async (_, given, principal, id) => {
    const credentials = new UserCredentials(given);
    await expect(credentials.resolve(principal, ['T'], 'MCP server "s"')).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
      data: { name: 'T', principal: id, source: credentials.source },
      message: expect.stringContaining(`set "T" under "${id}" in`),
    });
  });
});
