import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expandServerConfig, loadMcpEnv, parseDotEnv, parseMcpServers, readMcpClientFile, readProjectMcpServers } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';

let dir: string;
beforeAll(async () => {
  ({ dir } = await makeProject());
});

function thrown(fn: () => unknown): { code: string; message: string; data: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string; data: Record<string, unknown> };
  }
  throw new Error('expected a throw');
}

describe('parseMcpServers accepts the Claude Desktop / Cursor shape', () => {
  it('keeps stdio and remote servers as written, placeholders untouched', () => {
    const servers = {
      slack: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-slack'], env: { SLACK_BOT_TOKEN: '${SLACK_BOT_TOKEN}' } },
      local: { type: 'stdio', command: 'node', cwd: '/srv' },
      github: { url: 'https://mcp.example.com/v1', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      streamable: { type: 'http', url: 'https://a.example/mcp' },
      legacy: { type: 'sse', url: 'https://b.example/sse' },
    };
    expect(parseMcpServers(servers)).toEqual(servers);
  });
});

describe('parseMcpServers rejects bad fields with CONFIG_INVALID naming the server and field', () => {
  const cases: Array<[string, unknown, string | undefined, string | undefined]> = [
    ['not an object', [], undefined, undefined],
    ['a bad server name', { '../x': { command: 'a' } }, '../x', undefined],
    ['a server that is not an object', { a: 'npx' }, 'a', undefined],
    ['an unknown type', { a: { type: 'ws', url: 'x' } }, 'a', 'type'],
    ['an empty command', { a: { command: '' } }, 'a', 'command'],
    ['args that are not strings', { a: { command: 'x', args: ['ok', 3] } }, 'a', 'args[1]'],
    ['env values that are not strings', { a: { command: 'x', env: { PORT: 80 } } }, 'a', 'env.PORT'],
    ['a non-string cwd', { a: { command: 'x', cwd: 1 } }, 'a', 'cwd'],
    ['a remote server without url', { a: { type: 'http' } }, 'a', 'url'],
    ['headers that are not strings', { a: { url: 'https://x', headers: { A: true } } }, 'a', 'headers.A'],
    ['an unknown field', { a: { command: 'x', comand: 'y' } }, 'a', 'comand'],
    ['stdio fields on a remote server', { a: { url: 'https://x', args: [] } }, 'a', 'args'],
    ['neither command nor url', { a: {} }, 'a', 'command'],
  ];
  it.each(cases)('%s', (_, value, server, field) => {
    const error = thrown(() => parseMcpServers(value, 'agent-spaces.config.json'));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.data).toEqual({
      file: 'agent-spaces.config.json',
      detail: expect.stringContaining(server === undefined ? 'mcpServers must' : `${[server, field].filter(Boolean).join('.')} `),
      ...(server === undefined ? {} : { server }),
      ...(field === undefined ? {} : { field }),
    });
    expect(error.message).toMatch(/^agent-spaces\.config\.json: mcpServers/);
  });
});

describe('.mcp.json files are read as is', () => {
  it('reads .mcp.json and mcp.json, the first file winning a server both define', async () => {
    await writeFile(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'other' }, b: { command: 'b' } } }));
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'a', args: ['--x'] } } }));
    const read = await readProjectMcpServers(dir);
    expect(read?.servers).toEqual({ a: { command: 'a', args: ['--x'] }, b: { command: 'b' } });
    expect(read?.notes).toEqual(['mcp.json: server "a" ignored (.mcp.json defines it first)']);
  });

  it('names the file in INVALID_JSON, CONFIG_INVALID and CONFIG_NOT_FOUND errors', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ "mcpServers": ');
    await expect(readMcpClientFile(broken)).rejects.toMatchObject({ code: 'INVALID_JSON', data: { file: broken } });
    const wrong = join(dir, 'wrong.json');
    await writeFile(wrong, JSON.stringify({ other: {} }));
    await expect(readMcpClientFile(wrong)).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { file: wrong, field: 'mcpServers' } });
    const badField = join(dir, 'bad-field.json');
    await writeFile(badField, JSON.stringify({ mcpServers: { a: { command: 7 } } }));
    await expect(readMcpClientFile(badField)).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { file: badField, server: 'a', field: 'command' } });
    await expect(readMcpClientFile(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'CONFIG_NOT_FOUND' });
  });
});

describe('.env parsing', () => {
  it('reads plain, exported, quoted and commented entries', () => {
    const text = ['# comment', '', 'A=1', 'export B = two words # note', 'C="line\\nbreak"', "D='$literal # kept'", 'E='].join('\n');
    expect(parseDotEnv(text)).toEqual({ A: '1', B: 'two words', C: 'line\nbreak', D: '$literal # kept', E: '' });
  });

  it('reads a multi-line quoted value (a PEM key) as Node does', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----';
    const text = `A=1\nKEY="${pem}"\nB='two\nlines'\nC=3\n`;
    expect(parseDotEnv(text)).toEqual({ A: '1', KEY: pem, B: 'two\nlines', C: '3' });
  });

  it.each([
    ['a line without "=" before another entry', 'A=1\nnot a pair\nB=2\n', 2],
    ['a name starting with a digit', 'A=1\n1B=2\n', 2],
    ['a name with a dash', 'OK=1\nX=2\nBAD-NAME=3\n', 3],
  ])('rejects %s with CONFIG_INVALID naming file and line', (_, text, line) => {
    const error = thrown(() => parseDotEnv(text, '/p/.env'));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { file: '/p/.env', line } });
  });

  it('merges the host environment over the project .env', async () => {
    await writeFile(join(dir, '.env'), 'SHARED=from-file\nONLY_FILE=file\n');
    const env = await loadMcpEnv({ projectRoot: dir, env: { SHARED: 'from-host' } });
    expect(env).toMatchObject({ SHARED: 'from-host', ONLY_FILE: 'file' });
  });
});

describe('${VAR} expansion', () => {
  it('expands every string field, returns a new object and lists the substituted values', () => {
    const config = {
      command: '${BIN_DIR}/server',
      args: ['--token=${TOKEN}', '--mode=${MODE:-safe}'],
      env: { KEY: '${TOKEN}' },
      cwd: '${HOME_DIR:-/tmp}',
    };
    const { config: expanded, variables } = expandServerConfig('svc', config, { BIN_DIR: '/opt', TOKEN: 'tok-123', HOME_DIR: '' });
    expect(expanded).toEqual({ command: '/opt/server', args: ['--token=tok-123', '--mode=safe'], env: { KEY: 'tok-123' }, cwd: '/tmp' });
    expect([...variables.values()].sort()).toEqual(['/opt', 'tok-123']);
    expect(Object.fromEntries(variables)).toEqual({ BIN_DIR: '/opt', TOKEN: 'tok-123' });
    expect(config.args[0]).toBe('--token=${TOKEN}');
  });

  it('expands url and headers of remote servers', () => {
    const { config } = expandServerConfig('gh', { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${GH}' } }, { HOST: 'h.example', GH: 'x' });
    expect(config).toEqual({ url: 'https://h.example/mcp', headers: { Authorization: 'Bearer x' } });
  });

  it('throws CONFIG_INVALID naming server, field and variable for an unset variable', () => {
    const error = thrown(() => expandServerConfig('gh', { url: 'https://x', headers: { Authorization: 'Bearer ${GH_TOKEN}' } }, {}));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { server: 'gh', field: 'headers.Authorization', variable: 'GH_TOKEN' } });
  });
});
