// The MCP client files users already have, read as their clients write them: one fixture per client with its
// placeholders, and the hostile variants (unknown and nested forms, missing variables, inputs with no terminal, JSONC
// edge cases) refused with the file, field and form named.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandServerConfig, parseMcpServers, prepareServer, readMcpClientFile, readProjectMcpServers } from '../src/index.js';
import { normalizePlaceholders } from '../src/placeholder-forms.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures/client-configs');

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'as-client-configs-'));
}

describe('each client file is read as its client writes it', () => {
  it('Claude Desktop: its other keys are ignored with a note', async () => {
    const read = await readMcpClientFile(join(FIXTURES, 'claude-desktop/claude_desktop_config.json'), 'claude_desktop_config.json');
    expect(read.notes).toEqual(['claude_desktop_config.json: "globalShortcut" ignored (not an MCP server setting)']);
    expect(read.servers).toEqual({
      echo: { command: 'node', args: ['${ECHO_SERVER}', '--token', '${API_TOKEN}'], env: { SEEN_FILE: '${SEEN_FILE}', API_TOKEN: '${API_TOKEN}' } },
      remote: { url: '${HTTP_MCP_URL}', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    });
  });

  it('Claude Code: .mcp.json with ${VAR:-default} and its type keys', async () => {
    const read = await readProjectMcpServers(join(FIXTURES, 'claude-code'));
    expect(read?.notes).toEqual([]);
    expect(read?.servers.echo).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['${ECHO_SERVER}', '--mode', '${ECHO_MODE:-plain}'],
      env: { SEEN_FILE: '${SEEN_FILE}', API_TOKEN: '${API_TOKEN}' },
    });
    expect(read?.servers.remote).toMatchObject({ type: 'http', url: '${HTTP_MCP_URL}' });
  });

  it('Cursor: JSONC, ${env:VAR}, ${workspaceFolder}, ${userHome}, ${pathSeparator} and envFile', async () => {
    const root = join(FIXTURES, 'cursor');
    const read = await readProjectMcpServers(root);
    expect(read?.files).toEqual([join(root, '.cursor/mcp.json')]);
    expect(read?.servers.echo).toEqual({
      command: 'node',
      args: ['${ECHO_SERVER}', '--root', root, '--home', homedir(), '--sep', sep],
      env: { SEEN_FILE: '${SEEN_FILE}', API_TOKEN: '${API_TOKEN}' },
      envFile: join(root, '.cursor/server.env'),
    });
    expect(read?.servers.remote).toEqual({ url: '${HTTP_MCP_URL}', headers: { Authorization: 'Bearer ${API_TOKEN}' } });
  });

  it('VS Code: "servers", "inputs", ${input:id}, ${/} and its client keys noted', async () => {
    const root = join(FIXTURES, 'vscode');
    const read = await readProjectMcpServers(root);
    expect(read?.notes).toEqual(['.vscode/mcp.json: "dev" of servers.echo ignored (a client setting)']);
    expect(read?.servers.echo).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['${ECHO_SERVER}', '--key', '${input:api-key}', '--dir', `${root}${sep}data`],
      env: { SEEN_FILE: '${SEEN_FILE}', API_KEY: '${input:api-key}' },
    });
  });

  it('merges the files of a project, the first (in .mcp.json, mcp.json, .cursor, .vscode order) winning a name', async () => {
    const dir = await tempDir();
    await import('node:fs/promises').then(({ mkdir }) => Promise.all([mkdir(join(dir, '.cursor')), mkdir(join(dir, '.vscode'))]));
    await writeFile(join(dir, '.vscode/mcp.json'), JSON.stringify({ servers: { a: { type: 'stdio', command: 'vscode-a' }, c: { type: 'stdio', command: 'c' } } }));
    await writeFile(join(dir, '.cursor/mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'cursor-a' }, b: { command: 'b' } } }));
    const read = await readProjectMcpServers(dir);
    expect(read?.servers).toEqual({ a: { command: 'cursor-a' }, b: { command: 'b' }, c: { type: 'stdio', command: 'c' } });
    expect(read?.notes).toEqual(['.vscode/mcp.json: server "a" ignored (.cursor/mcp.json defines it first)']);
  });
});

describe('every placeholder form is expanded or refused, never passed through', () => {
  const context = { file: '.vscode/mcp.json', workspaceFolder: '/p', inputs: new Set(['key']) };
  const refused: Array<[string, string]> = [
    ['${command:pickFile}', '${command:pickFile}'],
    ['${config:editor.fontSize}', '${config:editor.fontSize}'],
    ['${cwd}', '${cwd}'],
    ['${file}', '${file}'],
    ['${env:}', '${env:}'],
    ['${env:A-B}', '${env:A-B}'],
    ['${input:other}', '${input:other}'],
    ['a ${${A}}', '${${A}}'],
    ['${env:${A}}', '${env:${A}}'],
    ['${A', '${A'],
    ['${}', '${}'],
    ['${ A }', '${ A }'],
    ['${user:}', '${user:}'],
  ];
  for (const [text, form] of refused) {
    it(`refuses ${JSON.stringify(text)} with CONFIG_PLACEHOLDER naming the file, server, field and form`, () => {
      expect(() => normalizePlaceholders(text, context, 's', 'args[0]')).toThrow(
        expect.objectContaining({ code: 'CONFIG_PLACEHOLDER', data: expect.objectContaining({ file: '.vscode/mcp.json', server: 's', field: 'args[0]', form }) }),
      );
    });
  }

  it('refuses ${workspaceFolder} and ${input:id} where the file has no workspace or inputs (the config file)', () => {
    for (const text of ['${workspaceFolder}/x', '${input:key}']) {
      expect(() => parseMcpServers({ s: { command: 'node', args: [text] } }, 'agent-spaces.config.json')).toThrow(expect.objectContaining({ code: 'CONFIG_PLACEHOLDER' }));
    }
  });

  it('expands or keeps the known forms', () => {
    expect(normalizePlaceholders('${workspaceFolder}${/}x ${workspaceFolderBasename}', context, 's', 'f')).toBe(`/p${sep}x p`);
    expect(normalizePlaceholders('${env:TOKEN} ${TOKEN} ${T:-d} ${user:U} ${input:key} $PLAIN ~/x', context, 's', 'f')).toBe(
      '${TOKEN} ${TOKEN} ${T:-d} ${user:U} ${input:key} $PLAIN ~/x',
    );
  });

  it('refuses a form left in a config given in code when the server starts', () => {
    expect(() => expandServerConfig('s', { url: 'https://x', headers: { A: '${command:x}' } }, {})).toThrow(expect.objectContaining({ code: 'CONFIG_PLACEHOLDER' }));
  });

  it('a missing ${env:VAR} is an error naming the variable, not an empty string', async () => {
    const [server] = Object.values((await readMcpClientFile(join(FIXTURES, 'cursor/.cursor/mcp.json'))).servers);
    expect(() => expandServerConfig('echo', server!, { ECHO_SERVER: 'e.mjs', SEEN_FILE: 'f' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ variable: 'API_TOKEN', field: 'env.API_TOKEN' }) }),
    );
  });
});

describe('${input:id}', () => {
  const config = { type: 'http' as const, url: 'https://x/mcp', headers: { Authorization: 'Bearer ${input:api-key}' } };

  it('takes AGENT_SPACES_INPUT_<ID> from the environment or .env, listed as a secret', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '.env'), 'AGENT_SPACES_INPUT_API_KEY=from-dotenv\n');
    const prepared = await prepareServer('remote', config, { projectRoot: dir, env: {} });
    expect(prepared.config).toMatchObject({ headers: { Authorization: 'Bearer from-dotenv' } });
    expect([...prepared.variables]).toEqual([['AGENT_SPACES_INPUT_API_KEY', 'from-dotenv']]);
  });

  it('without a value and without a terminal fails naming the input and the variable to set', async () => {
    await expect(prepareServer('remote', config, { env: {} })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('${input:api-key}') && expect.stringContaining('AGENT_SPACES_INPUT_API_KEY'),
      data: { server: 'remote', field: 'headers.Authorization', variable: 'AGENT_SPACES_INPUT_API_KEY' },
    });
  });
});

describe('envFile', () => {
  it("adds the file's entries to env, env winning, and lists them as secrets", async () => {
    const root = join(FIXTURES, 'cursor');
    const { servers } = (await readProjectMcpServers(root))!;
    const prepared = await prepareServer('echo', servers.echo!, { env: { ECHO_SERVER: 'e.mjs', SEEN_FILE: 'f', API_TOKEN: 'tok' } });
    expect(prepared.config).toMatchObject({ env: { FROM_ENV_FILE: 'file-value', API_TOKEN: 'tok', SEEN_FILE: 'f' } });
    expect('envFile' in prepared.config).toBe(false);
    expect(prepared.variables.get('FROM_ENV_FILE')).toBe('file-value');
  });

  it('a missing envFile fails naming the server and field', async () => {
    await expect(prepareServer('s', { command: 'node', envFile: '/nonexistent/x.env' }, { env: {} })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { server: 's', field: 'envFile' },
    });
  });
});

describe('JSONC', () => {
  async function read(text: string) {
    const dir = await tempDir();
    await writeFile(join(dir, 'mcp.json'), text);
    return readMcpClientFile(join(dir, 'mcp.json'), 'mcp.json');
  }

  it('accepts comments and trailing commas, and keeps // and /* */ inside strings', async () => {
    const text = '{\n  // servers\n  "mcpServers": { /* one */ "a": { "url": "http://h//x/*y*/", "headers": { "X": "//" }, }, },\n}';
    expect((await read(text)).servers).toEqual({ a: { url: 'http://h//x/*y*/', headers: { X: '//' } } });
  });

  const broken: Array<[string, number, number]> = [
    ['{\n  "mcpServers": {\n    "a": { "command": "x" \n  }\n', 5, 1],
    ['{ "mcpServers": { "a": { command: "x" } } }', 1, 26],
    ['{\n\n   "mcpServers": [1,,2] }', 3, 21],
    ['', 1, 1],
  ];
  for (const [text, line, column] of broken) {
    it(`gives INVALID_JSON at ${line}:${column} for ${JSON.stringify(text.slice(0, 30))}`, async () => {
      await expect(read(text)).rejects.toMatchObject({ code: 'INVALID_JSON', message: expect.stringMatching(new RegExp(`^mcp\\.json:${line}:${column}: `)), data: { line, column } });
    });
  }

  it('refuses a file over 1 MiB before parsing it, and reads a large one under it', async () => {
    const filler = `// ${'x'.repeat(1000)}\n`;
    await expect(read(`${filler.repeat(1100)}{"mcpServers":{}}`)).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { size: expect.any(Number) } });
    const many = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`s${i}`, { command: 'node', args: ['${A}', `/* ${i} */`] }]));
    expect(Object.keys((await read(JSON.stringify({ mcpServers: many }))).servers)).toHaveLength(2000);
  });
});
