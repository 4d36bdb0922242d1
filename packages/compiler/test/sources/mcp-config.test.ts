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
