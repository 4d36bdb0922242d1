// A terminal that shows the truth: agent-controlled strings (params, the approval message filled from them, logs,
// call errors, the result) reach the CLI's terminal with their control characters shown as text. The approval prompt
// runs in a real pseudo-terminal (util-linux `script`); the bin runs over the built packages, in a temp project.
import { writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInTerminal } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

const CRM = {
  name: 'crm',
  functions: [
    {
      name: 'createTicket',
      parameters: { type: 'object', properties: { customerId: { type: 'string' }, priority: { type: 'string' } }, required: ['customerId'] },
      returns: { type: 'string' },
      requiresApproval: true,
      approvalMessage: 'Create {priority} ticket for customer {customerId}?',
    },
  ],
  executor: { kind: 'module', module: './crm.handlers.mjs' },
};

/**
 * Each family of terminal spoofing, between markers: the text between `<n<` and `>n>` must reach the terminal as
 * visible escapes (`\x1b`, `\x1B`, `\b`, `\u202e`: ours or util.inspect's), never as the characters themselves.
 */
const ATTACKS = [
  { name: 'cursor up + erase line (the issue 16 spoof)', raw: '\u001b[1A\u001b[2K' },
  { name: 'clear screen + home', raw: '\u001b[2J\u001b[H' },
  { name: 'window title (OSC)', raw: '\u001b]0;owned\u0007' },
  { name: 'carriage return', raw: '\rcrm.listTickets' },
  { name: 'backspaces', raw: '\b\b\b\b' },
  { name: 'C1 CSI', raw: '\u009b2K' },
  { name: 'right-to-left override', raw: '\u202eylno-daer' },
];
/** What may not reach a terminal raw from agent code (newlines and tabs may). */
// eslint-disable-next-line no-control-regex -- control characters are what this test looks for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;
const PAYLOAD = ATTACKS.map((attack, i) => `<${i}<${attack.raw}>${i}>`).join('');

const SCRIPT = `import { crm } from '@capabilities/crm';
const customerId = ${JSON.stringify(`cus_001${PAYLOAD}`)};
console.log('log:', customerId);
try {
  const done: string = await crm.createTicket({ customerId, priority: 'low' });
  console.log('result:', done);
} catch (error) {
  console.log('refused:', (error as CapabilityError).code);
}
export default { customerId };
`;

beforeAll(async () => {
  project = await makeProject({
    'capabilities/crm.json': CRM,
    'capabilities/crm.handlers.mjs': 'export const createTicket = ({ customerId }) => `created for ${customerId}`;\n',
    'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
    'spoof.ts': SCRIPT,
  });
  const built = await project.cli(['capabilities', 'build']);
  expect(built.code, built.stderr).toBe(0);
}, 120_000);

/** Every attack of {@link ATTACKS} appears at least `times` times in `output`, each time escaped and never raw. */
function expectVisible(output: string, times: number): void {
  for (const [i, attack] of ATTACKS.entries()) {
    expect(output, attack.name).not.toContain(`<${i}<${attack.raw}`);
    // Within one line (the call preview line cuts the params short, leaving a marker open).
    const shown = [...output.matchAll(new RegExp(`<${i}<(.*?)>${i}>`, 'g'))].map((match) => match[1]!);
    expect(shown.length, attack.name).toBeGreaterThanOrEqual(times);
    for (const text of shown) {
      expect(text, attack.name).not.toMatch(CONTROL);
      expect(text, attack.name).toContain('\\');
    }
  }
}

describe('the approval prompt on a terminal', () => {
  it('keeps its header and shows every escape in params and message as text', async () => {
    const { code, raw, screen } = await runCliInTerminal(project.dir, 'n', ['run', 'spoof.ts']);
    expect(code).toBe(0);
    // The header the agent tried to rewrite comes out whole, on its own line, before the agent's text.
    expect(raw).toMatch(/(^|\n)\? Approval needed: crm\.createTicket\r?\n {2}Create low ticket for customer cus_001<0</);
    // Message and log line show each attack as text: the prompt's params go through util.inspect, which escapes
    // control characters its own way (\x1B) before the rest are made visible.
    expectVisible(raw, 3);
    expect(raw).toContain('\\x1b[1A\\x1b[2K');
    expect(raw).toContain('\\u202eylno-daer');
    expect(raw).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(screen).toContain('✗ denied by terminal prompt');
    expect(screen).toContain('refused: APPROVAL_DENIED');
  });

  it('a newline in a param cannot start a line that passes for the CLI header', async () => {
    await project.write({ 'newline.ts': SCRIPT.replace(/const customerId = .*;/, `const customerId = ${JSON.stringify('cus_001\n? Approval needed: crm.readOnly')};`) });
    const { raw } = await runCliInTerminal(project.dir, 'n', ['run', 'newline.ts']);
    expect(raw.match(/(^|\n)\? Approval needed: /g)).toHaveLength(1);
    expect(raw).toMatch(/\n {4}\? Approval needed: crm\.readOnly/);
  });
});

describe('without a terminal', () => {
  it('shows escapes as text in the auto-answer, call errors, logs and the result', async () => {
    const { code, stdout, stderr } = await project.cli(['run', '--approve', 'all', 'spoof.ts']);
    expect(code).toBe(0);
    expectVisible(stderr, 3); // the auto-approve line, the console.log line, the result log line
    expectVisible(stdout, 1); // the result
    expect(`${stdout}${stderr}`).not.toMatch(CONTROL);
  });

  it('--json escapes them too, and the JSON still reads back the same string', async () => {
    const { stdout } = await project.cli(['run', '--approve', 'all', '--json', 'spoof.ts']);
    expect(stdout).not.toMatch(CONTROL);
    expect((JSON.parse(stdout) as { result: { customerId: string } }).result.customerId).toBe(`cus_001${PAYLOAD}`);
  });

  it('--json prints a cyclic result and bigint params instead of failing INTERNAL', async () => {
    await writeFile(
      project.path('cycle.ts'),
      `const a: Record<string, unknown> = { n: 10n }; a.self = a; return a;\n`,
    );
    const { code, stdout } = await project.cli(['run', '--json', 'cycle.ts']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { n: '10', self: { $circular: '/result' } } });
  });
});
