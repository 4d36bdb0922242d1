import { BRIDGE_MODULE, STD_MODULE } from '@agent-spaces/capabilities';
import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox, type RunOutcome } from '../src/index.js';
import { MODULES, createPort, proxyModule } from './helpers.js';

const STD_SOURCE = [
  `import { call } from 'agent-spaces:bridge';`,
  `export const json = Object.freeze({ parse: (text) => JSON.parse(text) });`,
  `export const crypto = Object.freeze({ hash: (params) => call("std", "hash", params) });`,
].join('\n');

const withStd = new Sandbox({ modules: new Map([...MODULES, [STD_MODULE, STD_SOURCE]]) });
const withoutStd = new Sandbox({ modules: MODULES });
afterAll(async () => {
  await withStd.close();
  await withoutStd.close();
});

function run(sandbox: Sandbox, code: string): Promise<RunOutcome> {
  return sandbox.run(code, { port: createPort() });
}

function refused(outcome: RunOutcome, specifier?: string): void {
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(outcome.error.code).toBe('IMPORT_NOT_FOUND');
  if (specifier) {
    expect(outcome.error.data?.specifier).toBe(specifier);
    expect(outcome.error.message).toMatch(/Agent code can import: .*@capabilities\/math/);
    expect(outcome.error.data?.available).toContain('@capabilities/math');
  }
}

describe('imports', () => {
  it('imports a capability by namespace object and by function', async () => {
    const outcome = await run(withoutStd, `import { math, add } from '@capabilities/math';\nreturn [await math.add({ a: 1, b: 1 }), await add({ a: 2, b: 2 })];`);
    expect(outcome).toMatchObject({ ok: true, value: [2, 4] });
  });

  it('imports @agent-spaces/std when the space provides it', async () => {
    const port = createPort();
    const outcome = await withStd.run(
      `import { json, crypto } from '@agent-spaces/std';\nreturn [json.parse('{"a":1}'), await crypto.hash({ value: 'x' }).catch((e) => e.code)];`,
      { port },
    );
    expect(outcome).toMatchObject({ ok: true, value: [{ a: 1 }, 'FUNCTION_NOT_FOUND'] });
    expect(port.calls[0]).toMatchObject({ capability: 'std', function: 'hash' });
  });

  it('refuses @agent-spaces/std when the space does not provide it', async () => {
    refused(await run(withoutStd, `import { json } from '@agent-spaces/std';\nreturn json;`), STD_MODULE);
  });

  it('refuses an unknown capability and lists what can be imported', async () => {
    refused(await run(withoutStd, `import { slack } from '@capabilities/slack';\nreturn slack;`), '@capabilities/slack');
  });

  it('refuses the bridge module', async () => {
    refused(await run(withStd, `import { call } from '${BRIDGE_MODULE}';\nreturn await call('math', 'add', { a: 1, b: 2 });`), BRIDGE_MODULE);
  });

  it('refuses relative paths', async () => {
    refused(await run(withoutStd, `import { x } from './helpers';\nreturn x;`), './helpers');
  });

  it('refuses node built-ins and packages', async () => {
    refused(await run(withoutStd, `import { readFileSync } from 'node:fs';\nreturn readFileSync('/etc/passwd', 'utf8');`), 'node:fs');
    refused(await run(withoutStd, `import fs from 'fs';\nreturn fs;`), 'fs');
  });

  it('refuses side-effect imports of unknown modules', async () => {
    refused(await run(withoutStd, `import 'node:child_process';\nreturn 1;`), 'node:child_process');
  });

  it('refuses dynamic import() of anything, even known modules', async () => {
    refused(await run(withoutStd, `const m = await import('@capabilities/math');\nreturn m;`));
    refused(await run(withoutStd, `const name = 'node:fs';\nconst m = await import(name);\nreturn m;`));
  });

  it('refuses dynamic import() hidden in eval or the Function constructor at run time', async () => {
    const outcome = await run(withoutStd, `
      const viaEval = await (0, eval)('import("@capabilities/math")').then(() => 'loaded', (e: Error) => 'refused: ' + e.message);
      const viaFunction = await new Function('return import("node:fs")')().then(() => 'loaded', (e: Error) => 'refused: ' + e.message);
      return [viaEval, viaFunction];`);
    expect(outcome).toMatchObject({ ok: true, value: ['refused: Not supported', 'refused: Not supported'] });
  });

  it('refuses a capability module importing something the space does not provide', async () => {
    const sandbox = new Sandbox({ modules: new Map([['@capabilities/bad', `import fs from 'node:fs';\nexport const bad = fs;`]]) });
    const outcome = await run(sandbox, `import { bad } from '@capabilities/bad';\nreturn bad;`);
    refused(outcome);
    await sandbox.close();
  });

  it('refuses importing a name the module does not export', async () => {
    refused(await run(withoutStd, `import { subtract } from '@capabilities/math';\nreturn subtract;`));
  });

  it('lets generated modules import the bridge while agent code cannot', async () => {
    const modules = new Map([['@capabilities/other', proxyModule('other', 'other', ['ping'])]]);
    const sandbox = new Sandbox({ modules });
    const port = createPort();
    const outcome = await sandbox.run(`import { other } from '@capabilities/other';\nreturn await other.ping({}).catch((e) => e.code);`, { port });
    expect(outcome).toMatchObject({ ok: true, value: 'FUNCTION_NOT_FOUND' });
    expect(port.calls).toEqual([{ kind: 'call', capability: 'other', function: 'ping', params: {} }]);
    await sandbox.close();
  });
});
