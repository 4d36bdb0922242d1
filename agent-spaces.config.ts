import { fileURLToPath } from 'node:url';
import { defineConfig } from '@agent-spaces/capabilities';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  capabilities: ['capabilities/*.ts', 'capabilities/*.json'],
  // The official memory server (a knowledge graph in a local file, no network) becomes @capabilities/mcp-memory.
  mcpServers: {
    memory: {
      command: process.execPath,
      args: [here('./node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
      env: { MEMORY_FILE_PATH: here('./.agent-spaces/memory.jsonl') },
    },
  },
});
