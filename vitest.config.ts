import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@agent-spaces/source'] },
  ssr: { resolve: { conditions: ['@agent-spaces/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
