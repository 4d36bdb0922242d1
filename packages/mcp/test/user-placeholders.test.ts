import { describe, expect, it } from 'vitest';
import { expandServerConfig, parseMcpServers } from '../src/index.js';

describe('${user:NAME} in mcpServers', () => {
  it.each([
    ['a remote url', { url: 'https://x.test/${user:TOKEN}' }, 'url'],
    ['a stdio command', { command: '${user:BIN}' }, 'command'],
    ['a stdio argument', { command: 'node', args: ['--token=${user:TOKEN}'] }, 'args'],
    ['a stdio cwd', { command: 'node', cwd: '/home/${user:HOME}' }, 'cwd'],
  ])('is refused in %s', (_, server, field) => {
    expect(() => parseMcpServers({ s: server })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ server: 's', field }) }));
  });

  it('is accepted in remote headers and stdio env', () => {
    expect(() => parseMcpServers({ a: { url: 'https://x.test', headers: { Authorization: 'Bearer ${user:T}' } }, b: { command: 'node', env: { T: '${user:T}' } } })).not.toThrow();
  });

  it("expands from the principal's values, listed as user:NAME, and never reads one kind's value as the other's placeholder", () => {
    const config = { url: 'https://x.test', headers: { Authorization: 'Bearer ${user:T} ${HOST_VAR}' } };
    const { config: expanded, variables } = expandServerConfig('s', config, { HOST_VAR: '${user:T}', T: 'operator' }, new Map([['T', '${HOST_VAR}']]));
    expect(expanded).toEqual({ url: 'https://x.test', headers: { Authorization: 'Bearer ${HOST_VAR} ${user:T}' } });
    expect(variables).toEqual(new Map([['user:T', '${HOST_VAR}'], ['HOST_VAR', '${user:T}']]));
  });

  it('takes the environment variable NAME at build (no user), and says so when it is unset', () => {
    const config = { url: 'https://x.test', headers: { Authorization: 'Bearer ${user:T}' } };
    expect(expandServerConfig('s', config, { T: 'operator-token' }).config).toMatchObject({ headers: { Authorization: 'Bearer operator-token' } });
    expect(() => expandServerConfig('s', config, {})).toThrow(/\$\{user:T\} is not set \(the build has no user: set the environment variable T/);
  });
});
