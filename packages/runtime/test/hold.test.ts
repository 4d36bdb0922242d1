import type { CallOutcome, HostPort } from '@agent-spaces/capabilities';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessSandbox, RunHold, Sandbox } from '../src/index.js';
import { MODULES } from './helpers.js';

const LIMITS = { timeoutMs: 400 };
const inProcess = new Sandbox({ modules: MODULES, limits: LIMITS });
const processes = new ProcessSandbox({ modules: MODULES, limits: LIMITS });
afterAll(() => Promise.all([inProcess.close(), processes.close()]));

const CALL = `import { math } from '@capabilities/math';\nreturn await math.echo({ value: 'answered' });`;

/** A port whose call waits `ms` before answering, holding `hold` meanwhile when given (a person being asked). */
function slowPort(ms: number, hold?: RunHold): HostPort {
  return {
    call: async (): Promise<CallOutcome> => {
      hold?.hold();
      await new Promise((resolve) => setTimeout(resolve, ms));
      hold?.release();
      return { ok: true, value: 'answered' };
    },
  };
}

describe.each([
  ['in-process', inProcess],
  ['in a sandbox process', processes],
] as const)('the wall clock of a run waiting for a person (%s)', (_name, sandbox) => {
  it('stands still while held: a wait three times the time limit does not end the run', async () => {
    const hold = new RunHold();
    const outcome = await sandbox.run(CALL, { port: slowPort(1_200, hold), hold });
    expect(outcome).toMatchObject({ ok: true, value: 'answered' });
    expect(hold.held).toBe(false);
  });

  it('runs again once released, and still ends a run that goes on past its limit', async () => {
    const hold = new RunHold();
    const code = `${CALL.split('\n')[0]}\nawait math.echo({ value: 1 });\nawait math.sleep({ ms: 2000 });\nreturn 'never';`;
    const port: HostPort = {
      call: (message, signal) => (message.function === 'echo' ? slowPort(800, hold).call(message, signal) : new Promise((resolve) => setTimeout(() => resolve({ ok: true, value: 0 }), 2_000))),
    };
    const outcome = await sandbox.run(code, { port, hold });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('counts a wait that is not held', async () => {
    const outcome = await sandbox.run(CALL, { port: slowPort(1_200) });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('nests holds: the clock runs again only once every hold is released', () => {
    const hold = new RunHold();
    const heard: boolean[] = [];
    const stop = hold.listen((held) => heard.push(held));
    hold.hold();
    hold.hold();
    hold.release();
    expect(hold.held).toBe(true);
    hold.release();
    hold.release();
    stop();
    hold.hold();
    expect(heard).toEqual([true, false]);
  });
});
