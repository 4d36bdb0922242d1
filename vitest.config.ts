import { defineConfig } from 'vitest/config';

// Two projects (docs/testing.md): `unit` runs in the test's own process; `e2e` starts real processes or servers (the
// CLI, `mcp serve`, MCP servers, sandbox processes, HTTP servers, node children). End-to-end files are named
// `*.e2e.test.ts`.
const E2E = ['**/*.e2e.test.ts'];
const ALL = ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];

export default defineConfig({
  resolve: { conditions: ['@agent-spaces/source'] },
  ssr: { resolve: { conditions: ['@agent-spaces/source'] } },
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ALL, exclude: ['**/node_modules/**', ...E2E] } },
      { extends: true, test: { name: 'e2e', include: E2E, exclude: ['**/node_modules/**'] } },
    ],
  },
});
