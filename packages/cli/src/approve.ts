import { createInterface } from 'node:readline';
import { inspect } from 'node:util';
import { AgentSpacesError, visibleText } from '@agent-spaces/capabilities';
import type { ApprovalAnswer, ApprovalRequest } from '@agent-spaces/sdk';
import type { Output } from './output.js';

/** How `agent-spaces run` answers approval requests when stdin is not a terminal (`--approve`). */
export type AutoAnswer = 'all' | 'none';

/** Reads `--approve`: `all` approves every request, `none` (the default) denies it. Throws `CONFIG_INVALID` otherwise. */
export function parseAutoAnswer(value: unknown): AutoAnswer {
  if (value === undefined) return 'none';
  if (value === 'all' || value === 'none') return value;
  throw new AgentSpacesError('CONFIG_INVALID', `--approve must be "all" or "none", got ${JSON.stringify(value)}`, { field: 'approve' });
}

/**
 * The approver of one `agent-spaces run`: on a terminal it asks the person (capability, function, params, message,
 * `[y/N]`, one request at a time); otherwise it answers `auto` without asking, and says so on stderr.
 */
export function cliApprover(output: Output, auto: AutoAnswer, input: NodeJS.ReadStream = process.stdin) {
  if (!input.isTTY) {
    return (request: ApprovalRequest): ApprovalAnswer => {
      const approved = auto === 'all';
      output.err(
        `! ${visibleText(`${request.capability}.${request.function}: ${request.message}`, '  ')}\n` +
          `  auto-${approved ? 'approved' : 'denied'}: stdin is not a terminal, so nobody was asked (--approve ${auto}` +
          `${approved ? '' : '; pass --approve all to approve'})`,
      );
      return { approved, by: `--approve ${auto} (no terminal)` };
    };
  }
  let queue: Promise<unknown> = Promise.resolve();
  return (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    const asked = queue.then(() => prompt(request, output, input));
    queue = asked.catch(() => undefined);
    return asked;
  };
}

/**
 * Asks the person at the terminal. Everything in the request came from agent code (the message is filled from its
 * params): it is printed through `visibleText`, so control characters show as text, and its later lines are indented
 * deeper than the prompt's own, so they can neither rewrite the header nor pass for one of its lines.
 */
async function prompt(request: ApprovalRequest, output: Output, input: NodeJS.ReadStream): Promise<ApprovalAnswer> {
  output.err(
    [
      '',
      `? Approval needed: ${visibleText(`${request.capability}.${request.function}`)}`,
      `  ${visibleText(request.message, '    ')}`,
      `  params: ${visibleText(inspect(request.params, { depth: 4, breakLength: 100 }), '    ')}`,
    ].join('\n'),
  );
  const rl = createInterface({ input, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question('  Approve? [y/N] ', resolve);
      rl.once('close', () => resolve(''));
    });
    const approved = /^\s*y(es)?\s*$/i.test(answer);
    return { approved, by: 'terminal prompt', ...(approved ? {} : { reason: 'the person at the terminal said no' }) };
  } finally {
    rl.close();
  }
}
