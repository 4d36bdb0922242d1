import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { HeadlessMode } from '../src/config.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory, type ElicitAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const DELETE = `import { vault } from '@capabilities/vault';
try {
  return await vault.deleteSecrets();
} catch (error) {
  const { code, message } = error as { code: string; message: string };
  return { code, message };
}`;

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

afterAll(async () => {
  await project?.cleanup();
});

async function runGated(elicit: ElicitAnswer | undefined, headlessMode?: HeadlessMode) {
  const server = createCodeModeServer({
    spaces: [{ id: 'vault', name: 'Vault' }],
    ...(headlessMode ? { headlessMode } : {}),
    space: { rootDir: project.rootDir, handlers: project.handlers },
  });
  const client = await connectInMemory(server, elicit);
  try {
    const before = project.deletions.length;
    const answer = await callTool(client, 'execute', { code: DELETE });
    expect(answer.isError).toBe(false);
    return { result: answer.body.result, handlerRan: project.deletions.length > before };
  } finally {
    await client.close();
  }
}

describe('approvals over MCP elicitation', () => {
  it('asks the client and runs the gated call when the person approves', async () => {
    const asked: ElicitRequest[] = [];
    const outcome = await runGated((request) => {
      asked.push(request);
      return { action: 'accept', content: { approve: true } };
    });
    expect(outcome).toEqual({ result: { deleted: 3 }, handlerRan: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain('deleteSecrets');
    expect(asked[0]!.params).toMatchObject({ requestedSchema: { properties: { approve: { type: 'boolean' } }, required: ['approve'] } });
  });

  it('denies the call with APPROVAL_DENIED when the person declines or unticks approve', async () => {
    for (const answer of [{ action: 'decline' as const }, { action: 'accept' as const, content: { approve: false } }]) {
      const outcome = await runGated(() => answer);
      expect(outcome.handlerRan).toBe(false);
      expect(outcome.result.code).toBe('APPROVAL_DENIED');
    }
  });
});

describe('approvals without elicitation (headless)', () => {
  it('denies by default and says why in the error', async () => {
    const outcome = await runGated(undefined);
    expect(outcome.handlerRan).toBe(false);
    expect(outcome.result.code).toBe('APPROVAL_DENIED');
    expect(outcome.result.message).toContain('elicitation');
  });

  it('runs the call when the headless mode is allow', async () => {
    expect(await runGated(undefined, 'allow')).toEqual({ result: { deleted: 3 }, handlerRan: true });
  });
});
