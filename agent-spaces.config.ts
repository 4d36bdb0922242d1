import { defineConfig } from '@agent-spaces/capabilities';

export default defineConfig({
  capabilities: ['capabilities/*.ts', 'capabilities/*.json'],
});
