import { describe, expect, it } from 'vitest';
import type { McpServers } from '@agent-spaces/capabilities';
import { configSources, resolveConfig, selfServers } from '../../src/index.js';

describe("skipping servers that start agent-spaces' own MCP server", () => {
  const own: McpServers = {
    npx: { command: 'npx', args: ['agent-spaces', 'mcp', 'serve', '--config', 'agent-spaces.config.ts'] },
    npxYes: { command: 'npx', args: ['-y', '@agent-spaces/cli@0.1.0', 'mcp', 'serve'] },
    bin: { command: 'agent-spaces', args: ['mcp', 'serve', '--port', '0'] },
    binPath: { command: '/app/node_modules/.bin/agent-spaces', args: ['mcp', 'serve'] },
    node: { type: 'stdio', command: 'node', args: ['--no-node-snapshot', '/repo/packages/cli/bin/agent-spaces.js', 'mcp', 'serve'] },
  };
  const others: McpServers = {
    memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    build: { command: 'npx', args: ['agent-spaces', 'capabilities', 'build'] },
    lookalike: { command: 'npx', args: ['agent-spaces-helper', 'mcp', 'serve'] },
    wordsApart: { command: 'npx', args: ['mcp', 'serve', 'agent-spaces'] },
    remote: { url: 'http://127.0.0.1:8080/mcp' },
  };

  it('names every stdio entry that runs `agent-spaces mcp serve`, however it is started', () => {
    expect(selfServers({ ...own, ...others })).toEqual(Object.keys(own));
  });

  it('leaves them out of the config sources the build reads', () => {
    const config = resolveConfig({ mcpServers: { ...own, memory: others.memory! } }, '/project');
    expect(configSources(config).map((s) => s.label)).toEqual(['mcpServers.memory']);
  });
});

describe("skipping remote entries whose url is this project's own mcp serve", () => {
  const servers: McpServers = {
    exact: { type: 'http', url: 'http://127.0.0.1:8080/mcp' },
    localhost: { url: 'http://localhost:8080/mcp/', headers: { Authorization: 'Bearer ${T}' } },
    ipv6: { url: 'http://[::1]:8080/mcp' },
    advertised: { url: 'https://spaces.example.com/mcp' },
    otherPort: { url: 'http://127.0.0.1:8081/mcp' },
    otherPath: { url: 'http://127.0.0.1:8080/sse' },
    otherHost: { url: 'http://10.0.0.2:8080/mcp' },
    placeholder: { url: '${URL}' },
  };

  it('knows the urls from server.port, server.host and server.advertiseUrl, and none without them', () => {
    expect(resolveConfig({ server: { port: 8080, advertiseUrl: 'https://spaces.example.com/' } }, '/p').mcpSelfUrls).toEqual([
      'http://127.0.0.1:8080/mcp',
      'https://spaces.example.com/mcp',
    ]);
    expect(resolveConfig({ server: { port: 9, host: '::1' } }, '/p').mcpSelfUrls).toEqual(['http://[::1]:9/mcp']);
    expect(resolveConfig({}, '/p').mcpSelfUrls).toBeUndefined();
  });

  it('names the entries reaching them (any loopback host, a trailing slash ignored) and leaves them out of the build', () => {
    const config = resolveConfig({ mcpServers: servers, server: { port: 8080, advertiseUrl: 'https://spaces.example.com' } }, '/p');
    expect(selfServers(servers, config.mcpSelfUrls)).toEqual(['exact', 'localhost', 'ipv6', 'advertised']);
    expect(configSources(config).map((s) => s.label)).toEqual(['mcpServers.otherPort', 'mcpServers.otherPath', 'mcpServers.otherHost', 'mcpServers.placeholder']);
    expect(selfServers(servers)).toEqual([]);
  });
});
