// `agent-spaces run` approvals (a terminal prompt driven through a pseudo-terminal, and the non-terminal --approve
// answers) and `agent-spaces audit`, through the committed bin over the built packages, in a temp project.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInTerminal } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

const cli = (...args: string[]) => project.cli(args);

const cliInTerminal = (answer: string, ...args: string[]) => runCliInTerminal(project.dir, answer, args);

const FILES = {
  name: 'files',
  functions: [
    {
      name: 'deleteFile',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      returns: { type: 'string' },
      requiresApproval: true,
      approvalMessage: 'Delete file: {path}?',
    },
  ],
  executor: { kind: 'module', module: './files.handlers.mjs' },
};

const SCRIPT = `import { files } from '@capabilities/files';
try {
  const done: string = await files.deleteFile({ path: '/tmp/important.txt' });
  console.log('result:', done);
} catch (error) {
  console.log('refused:', (error as CapabilityError).code);
}
`;

beforeAll(async () => {
  project = await makeProject({
    'capabilities/files.json': FILES,
    'capabilities/files.handlers.mjs': 'export const deleteFile = ({ path }) => `deleted ${path}`;\n',
    'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
    'delete.ts': SCRIPT,
  });
  const built = await cli('capabilities', 'build');
  expect(built.code, built.stderr).toBe(0);
}, 120_000);

describe('agent-spaces run on a terminal', () => {
  it('prompts with capability, function, params and message, and runs the call on y', async () => {
    const { code, screen } = await cliInTerminal('y', 'run', 'delete.ts');
    expect(code).toBe(0);
    expect(screen).toContain('Approval needed: files.deleteFile');
    expect(screen).toContain('Delete file: /tmp/important.txt?');
    expect(screen).toContain("path: '/tmp/important.txt'");
    expect(screen).toContain('✓ approved by terminal prompt');
    expect(screen).toContain('result: deleted /tmp/important.txt');
  });

  it('denies on anything but y, and the call never runs', async () => {
    const { code, screen } = await cliInTerminal('n', 'run', 'delete.ts');
    expect(code).toBe(0);
    expect(screen).toContain('✗ denied by terminal prompt');
    expect(screen).toContain('refused: APPROVAL_DENIED');
    expect(screen).not.toContain('result: deleted');
  });
});

describe('agent-spaces run without a terminal', () => {
  it('denies by default and says it answered without asking', async () => {
    const { code, stderr } = await cli('run', 'delete.ts');
    expect(code).toBe(0);
    expect(stderr).toContain('auto-denied: stdin is not a terminal');
    expect(stderr).toContain('pass --approve all to approve');
    expect(stderr).toContain('[log] refused: APPROVAL_DENIED');
  });

  it('approves with --approve all, saying so', async () => {
    const { code, stderr } = await cli('run', '--approve', 'all', 'delete.ts');
    expect(code).toBe(0);
    expect(stderr).toContain('auto-approved: stdin is not a terminal');
    expect(stderr).toContain('[log] result: deleted /tmp/important.txt');
  });

  it('refuses an unknown --approve value', async () => {
    const { code, stderr } = await cli('run', '--approve', 'maybe', 'delete.ts');
    expect(code).toBe(1);
    expect(stderr).toContain('CONFIG_INVALID');
  });
});

describe('agent-spaces audit', () => {
  it('prints every call with its decision and who made it, as text and JSON, filtered by space and time', async () => {
    await cli('run', '--approve', 'all', 'delete.ts');
    const text = await cli('audit');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/default {2}files\.deleteFile \{"path":"\/tmp\/important\.txt"\} {2}asked \(requiresApproval\) → approved by --approve all \(no terminal\) {2}ok/);
    const json = await cli('audit', '--space', 'default', '--since', '1h', '--json');
    const { records, malformed } = JSON.parse(json.stdout) as { records: Array<{ decision?: { answeredBy?: string } }>; malformed: number };
    expect(malformed).toBe(0);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.map((r) => r.decision?.answeredBy)).toContain('--approve all (no terminal)');
    expect(JSON.parse((await cli('audit', '--space', 'other', '--json')).stdout).records).toEqual([]);
    expect(JSON.parse((await cli('audit', '--since', '2999-01-01', '--json')).stdout).records).toEqual([]);
    expect((await cli('audit', '--since', 'yesterday-ish')).code).toBe(1);
  });
});
