import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AgentSpacesError,
  ERROR_CODES,
  errorCodesOf,
  isErrorCode,
  readWireError,
  toWireError,
  type CompileErrorCode,
  type ErrorCode,
  type ErrorFamily,
  type RunErrorCode,
  type ServerErrorCode,
} from '../src/index.js';

const FAMILIES: Record<ErrorFamily, { title: string; about: string }> = {
  compile: {
    title: 'Compile errors',
    about: 'Reported by the compiler and the config loader: build diagnostics and thrown `AgentSpacesError`s.',
  },
  run: {
    title: 'Run errors',
    about:
      'Reported by a run: the `error.code` of a failed run, and the `code` of the `CapabilityError` a failed call ' +
      'rejects with in agent code (the sandbox declares them as the type `CapabilityErrorCode`).',
  },
  server: {
    title: 'Server errors',
    about: 'Returned by `agent-spaces mcp serve` as the `code` of a structured error result (`isError: true`).',
  },
};

/** docs/errors.md, rendered from {@link ERROR_CODES}. */
function errorsMarkdown(): string {
  const sections = (Object.keys(FAMILIES) as ErrorFamily[]).map((family) => {
    const rows = errorCodesOf(family).map((code) => `| \`${code}\` | ${ERROR_CODES[code].description} |`);
    return [`## ${FAMILIES[family].title}`, '', FAMILIES[family].about, '', '| code | meaning |', '|---|---|', ...rows].join('\n');
  });
  return [
    '# Error codes',
    '',
    '<!-- Generated from ERROR_CODES in packages/capabilities/src/errors.ts by packages/capabilities/test/errors.test.ts;',
    '     after changing the table, run: npx vitest run packages/capabilities/test/errors.test.ts -u -->',
    '',
    'Every error agent-spaces reports carries one of these stable codes, with a message for people and, for some, details',
    'in `data`. Branch on `code`, never on the message. A code received from elsewhere that is not in this list becomes',
    '`INTERNAL` (or the receiver\'s own fallback), with the code received kept as `data.code`.',
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n');
}

describe('the error code table', () => {
  it('names every code in capitals and describes it in one line that fits a table cell and a doc comment', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
      expect(info.families.length).toBeGreaterThan(0);
      expect(info.description).toMatch(/^[A-Z`].*\.$/);
      expect(info.description).not.toMatch(/[\n|]|\*\//);
    }
  });

  it('derives one code type per family from the table', () => {
    expectTypeOf<'BAD_REF'>().toExtend<CompileErrorCode>();
    expectTypeOf<'POLICY_DENIED'>().toExtend<RunErrorCode>();
    expectTypeOf<'TOOL_NOT_FOUND'>().toExtend<ServerErrorCode>();
    expectTypeOf<'MCP_UNAVAILABLE'>().toExtend<CompileErrorCode & RunErrorCode>();
    expectTypeOf<'BAD_REF'>().not.toExtend<RunErrorCode>();
    expectTypeOf<'NOPE'>().not.toExtend<ErrorCode>();
    expectTypeOf<keyof typeof ERROR_CODES>().toEqualTypeOf<ErrorCode>();
  });

  it('lists the codes of a family in table order', () => {
    expect(errorCodesOf('server')).toEqual([
      'APPROVAL_NOT_FOUND',
      'APPROVAL_ANSWERED',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'ISSUER_UNAVAILABLE',
      'APPROVER_NOT_ALLOWED',
      'REPLAY_UNAVAILABLE',
      'RUN_INTERRUPTED',
      'SPACE_NOT_FOUND',
      'AGENT_NOT_FOUND',
      'INVALID_FORMAT',
      'TOO_MANY_SESSIONS',
      'STORE_UNAVAILABLE',
      'TOO_MANY_TASKS',
      'SESSION_NOT_FOUND',
      'INVALID_ARGUMENTS',
      'TOOL_NOT_FOUND',
      'PROMPT_NOT_FOUND',
      'MODEL_UNAVAILABLE',
      'MODEL_ERROR',
      'MODEL_LIBRARY_MISSING',
      'MAX_TURNS',
      'SKILL_NOT_OWNED',
    ]);
    expect(errorCodesOf('run')).toContain('CONFIG_INVALID');
    expect(errorCodesOf('compile')).toContain('CONFIG_INVALID');
    expect(errorCodesOf('compile')).toContain('CONFIG_PLACEHOLDER');
    expect(errorCodesOf('run')).toContain('SANDBOX_UNAVAILABLE');
    expect(errorCodesOf('run')).not.toContain('BAD_REF');
  });

  it('is what docs/errors.md says', async () => {
    await expect(errorsMarkdown()).toMatchFileSnapshot('../../../docs/errors.md');
  });
});

describe('isErrorCode', () => {
  it('accepts the codes of the table, of any family or of the one asked for', () => {
    expect(isErrorCode('POLICY_DENIED')).toBe(true);
    expect(isErrorCode('BAD_REF')).toBe(true);
    expect(isErrorCode('BAD_REF', 'run')).toBe(false);
    expect(isErrorCode('MCP_UNAVAILABLE', 'compile')).toBe(true);
    expect(isErrorCode('MCP_UNAVAILABLE', 'run')).toBe(true);
  });

  it('refuses anything else, inherited keys included', () => {
    for (const value of ['NOPE', 'policy_denied', '', 'toString', '__proto__', 'constructor', 42, null, undefined, {}]) {
      expect(isErrorCode(value)).toBe(false);
    }
  });

  it('narrows to the family asked for', () => {
    const value: unknown = 'TIMEOUT';
    if (isErrorCode(value, 'run')) expectTypeOf(value).toEqualTypeOf<RunErrorCode>();
    if (isErrorCode(value)) expectTypeOf(value).toEqualTypeOf<ErrorCode>();
  });
});

describe('toWireError', () => {
  it('keeps the code, message and data of an AgentSpacesError', () => {
    const error = new AgentSpacesError('RATE_LIMITED', 'slow down', { retryAfterMs: 5 });
    expect(toWireError(error, 'HANDLER_ERROR', 'ignored')).toEqual({ code: 'RATE_LIMITED', message: 'slow down', data: { retryAfterMs: 5 } });
    expect(toWireError(new AgentSpacesError('TIMEOUT', 'late'))).toEqual({ code: 'TIMEOUT', message: 'late' });
  });

  it('keeps a copy from another package (same name and a known code)', () => {
    const copy = Object.assign(new Error('gone'), { name: 'AgentSpacesError', code: 'SPACE_CLOSED', data: { id: 1 } });
    expect(toWireError(copy)).toEqual({ code: 'SPACE_CLOSED', message: 'gone', data: { id: 1 } });
  });

  it('turns an AgentSpacesError with an unknown code into the fallback, keeping the code as data.code', () => {
    const forged = Object.assign(new Error('made up'), { name: 'AgentSpacesError', code: 'MY_CODE', data: { secret: 1 } });
    expect(toWireError(forged, 'HANDLER_ERROR')).toEqual({ code: 'HANDLER_ERROR', message: 'made up', data: { code: 'MY_CODE' } });
  });

  it('turns any other error into the fallback (INTERNAL by default), after the prefix', () => {
    expect(toWireError(new Error('port broke'))).toEqual({ code: 'INTERNAL', message: 'port broke' });
    expect(toWireError(new TypeError('bad'), 'HANDLER_ERROR', 'The handler failed')).toEqual({
      code: 'HANDLER_ERROR',
      message: 'The handler failed: bad',
    });
    expect(toWireError('plain text')).toEqual({ code: 'INTERNAL', message: 'plain text' });
    expect(toWireError(undefined)).toEqual({ code: 'INTERNAL', message: 'undefined' });
  });

  it('keeps a string code of a foreign error as data.code, even a known one', () => {
    const enoent = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    expect(toWireError(enoent, 'HANDLER_ERROR')).toEqual({ code: 'HANDLER_ERROR', message: 'no such file', data: { code: 'ENOENT' } });
    const lookalike = Object.assign(new Error('not ours'), { code: 'POLICY_DENIED' });
    expect(toWireError(lookalike)).toEqual({ code: 'INTERNAL', message: 'not ours', data: { code: 'POLICY_DENIED' } });
  });

  it('never throws, even for a value whose message cannot be read', () => {
    const hostile = { toString: () => { throw new Error('no'); } };
    expect(toWireError(hostile, 'HANDLER_ERROR', 'The call failed')).toEqual({ code: 'HANDLER_ERROR', message: 'The call failed' });
    const getter = Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('no'); } });
    expect(toWireError(getter)).toEqual({ code: 'INTERNAL', message: 'An error that cannot be described' });
  });
});

describe('readWireError', () => {
  it('keeps a known code and the known fields, and nothing else', () => {
    expect(readWireError({ code: 'POLICY_DENIED', message: 'no', callId: '3', capability: 'c', function: 'f', data: { a: 1 }, stack: 'x' }, 'run')).toEqual({
      code: 'POLICY_DENIED',
      message: 'no',
      callId: '3',
      capability: 'c',
      function: 'f',
      data: { a: 1 },
    });
  });

  it("turns a code outside the family into INTERNAL, keeping the code it got in data", () => {
    expect(readWireError({ code: 'NOPE', message: 'm', data: { b: 2 } }, 'run')).toEqual({ code: 'INTERNAL', message: 'm', data: { b: 2, code: 'NOPE' } });
    expect(readWireError({ code: 'SPACE_NOT_FOUND', message: 'm' }, 'run')).toMatchObject({ code: 'INTERNAL', data: { code: 'SPACE_NOT_FOUND' } });
  });

  it.each([null, 'text', 42, [], { code: 1, message: 'm' }, { code: 'TIMEOUT' }, { message: 'm' }])('refuses %j', (value) => {
    expect(readWireError(value, 'run')).toBeUndefined();
  });
});
