import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodesOf } from '@agent-spaces/capabilities';
import { createTypechecker, type Typechecker } from '@agent-spaces/compiler';
import { SANDBOX_GLOBALS_DTS } from '@agent-spaces/runtime';

// Agent code typechecks against the sandbox globals: `CapabilityError.code` is the union of the run error codes.
let checker: Typechecker;
beforeAll(async () => {
  checker = await createTypechecker({ declarations: new Map([['sandbox-globals.d.ts', SANDBOX_GLOBALS_DTS]]) });
});
afterAll(() => checker.dispose());

const branchOn = (code: string) =>
  `try { throw new Error('x'); } catch (e) { if (e instanceof CapabilityError && e.code === '${code}') console.log(e.data); }`;

describe("agent code's CapabilityError.code", () => {
  it('compiles a branch on a run error code', () => {
    expect(checker.check(branchOn('POLICY_DENIED'))).toEqual([]);
  });

  it('is a type error when compared with a code that does not exist', () => {
    const diagnostics = checker.check(branchOn('NOPE'));
    expect(diagnostics.map(({ code, line }) => ({ code, line }))).toEqual([{ code: 2367, line: 1 }]);
  });

  it('is exactly the run codes of the error table', () => {
    const runCodes = errorCodesOf('run');
    expect(checker.check(runCodes.map((code, i) => `const c${i}: CapabilityErrorCode = '${code}';`).join('\n'))).toEqual([]);
    const compileOnly = errorCodesOf('compile').filter((code) => !(runCodes as string[]).includes(code));
    const diagnostics = checker.check(compileOnly.map((code, i) => `const c${i}: CapabilityErrorCode = '${code}';`).join('\n'));
    expect(diagnostics.map((d) => d.code)).toEqual(compileOnly.map(() => 2322));
  });

  it('narrows to APPROVAL_DENIED for an ApprovalDeniedError, and new CapabilityError takes only known codes', () => {
    expect(checker.check(`const e = new ApprovalDeniedError({ code: 'APPROVAL_DENIED', message: 'no' });\nconst c: 'APPROVAL_DENIED' = e.code;`)).toEqual([]);
    expect(checker.check(`new CapabilityError({ code: 'MY_CODE', message: 'x' });`).map((d) => d.code)).toEqual([2322]);
  });
});
