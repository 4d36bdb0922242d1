// The rule bypasses of issue 16, tried by agent code through createSpace(): each family of variants of a denied value
// (case, whitespace, invisible characters, Unicode look-alikes, encodings, symbolic links) is denied and its handler
// never runs; rule keys that name nothing fail the space at creation. Real sandbox, real bridge, real files.
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type PoliciesConfig } from '@agent-spaces/capabilities';
import { createSpace, type Space, type SpaceOptions } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
let space: Space;
const ran: string[] = [];

const CRM = {
  name: 'company-crm',
  functions: [
    {
      name: 'createTicket',
      parameters: { type: 'object', properties: { customerId: { type: 'string' }, priority: { type: 'string' } }, required: ['customerId'] },
    },
  ],
  executor: { kind: 'runtime' },
};
const MAIL = {
  name: 'mail',
  functions: [{ name: 'send', parameters: { type: 'object', properties: { to: { type: 'string' }, cc: { type: 'array', items: { type: 'string' } } } } }],
  executor: { kind: 'runtime' },
};
const files = defineTool({
  name: 'files',
  functions: {
    deleteFile: {
      description: 'Delete a file',
      parameters: { path: { type: 'string', required: true } },
      handler: ({ path }) => (ran.push(`delete ${path}`), 'deleted'),
    },
  },
});
const net = defineTool({
  name: 'net',
  functions: {
    fetchUrl: { description: 'Fetch a URL', parameters: { url: { type: 'string', required: true } }, handler: ({ url }) => (ran.push(`fetch ${url}`), 'fetched') },
  },
});

const handlers: SpaceOptions['handlers'] = {
  'company-crm': { createTicket: ({ customerId }: { customerId: string }) => (ran.push(`ticket ${customerId}`), 'created') },
  mail: { send: ({ to }: { to: string }) => (ran.push(`send ${to}`), 'sent') },
};

const policies = (root: string): PoliciesConfig => ({
  rules: {
    '*': 'allow',
    'mail.send': [
      { when: { to: { matches: '@(rival|competitor)\\.com$', ignoreCase: true } }, then: 'deny' },
      { when: { cc: { emailDomain: ['rival.com', 'competitor.com'] } }, then: 'deny' },
    ],
    'files.deleteFile': [{ when: { path: { within: join(root, 'allowed') } }, then: 'allow' }, { then: 'deny' }],
    'net.fetchUrl': [{ when: { url: { domain: 'internal.corp' } }, then: 'deny' }],
  },
});

beforeAll(async () => {
  project = await makeProject({ 'outside/secret.txt': 'secret' });
  await mkdir(project.path('allowed/sub'), { recursive: true });
  await symlink('../outside', project.path('allowed/link-out'));
  await symlink('../outside/secret.txt', project.path('allowed/link-file'));
  await symlink('../outside/new.txt', project.path('allowed/dangling'));
  space = await createSpace({ rootDir: project.dir, capabilities: [CRM, MAIL, files, net], handlers, policies: policies(project.dir), typecheck: false });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

/** Runs agent code calling `call(value)` for each value; returns each call's error code, or 'ran'. */
async function tryEach(imports: string, call: string, values: readonly unknown[]): Promise<string[]> {
  const result = await space.run(`
${imports}
const codes: string[] = [];
for (const value of ${JSON.stringify(values)}) {
  try {
    await ${call};
    codes.push('ran');
  } catch (error) {
    codes.push((error as CapabilityError).code);
  }
}
return codes;
`);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.result as string[];
}

describe('rules that cannot be sidestepped', () => {
  it('denies every spelling of a rival address the docs example names', async () => {
    const variants = [
      'x@rival.com',
      'x@RIVAL.com',
      'X@Rival.COM',
      ' x@rival.com ',
      'x@rival.com\n',
      'x@ri\u200bval.com',
      'x@riv\u00adal.com',
      'x@r\u200dival.com',
      '\ufeffx@rival.com',
      'x@ｒｉｖａｌ.com',
      'x＠ｃｏｍｐｅｔｉｔｏｒ．ｃｏｍ',
      'x@𝐫𝐢𝐯𝐚𝐥.com',
      'x@rival\u{e0041}.com',
      // Issue 25: trailing dots, look-alike letters of other scripts (and their punycode), NUL and quoted local parts.
      'x@rival.com.',
      'x@RIVAL.COM.',
      'x@rival.com..',
      'x@rival。com',
      'x@rivаl.com',
      'x@rival.cοm',
      'x@гіѵаӏ.com',
      'x@xn--rivl-73d.com',
      'x@rival.com\u0000',
      'x@rival.com\u0000.evil.org',
      '"x"@rival.com',
      '"x"@rival.com\u0000',
      '"x@y"@rival.com',
    ];
    const before = ran.length;
    expect(await tryEach(`import { mail } from '@capabilities/mail';`, 'mail.send({ to: value })', variants)).toEqual(variants.map(() => 'POLICY_DENIED'));
    expect(await tryEach(`import { mail } from '@capabilities/mail';`, 'mail.send({ to: "ok@example.com", cc: [value] })', variants)).toEqual(
      variants.map(() => 'POLICY_DENIED'),
    );
    expect(ran.length).toBe(before);
    expect(await tryEach(`import { mail } from '@capabilities/mail';`, 'mail.send({ to: value })', ['x@example.com'])).toEqual(['ran']);
  });

  it('denies every spelling of an internal host', async () => {
    const variants = [
      'https://internal.corp/',
      'https://API.Internal.Corp./x',
      'https://ok.com@internal.corp/',
      'https://ｉｎｔｅｒｎａｌ.corp/',
      'internal.corp:8443',
      '//internal.corp/x',
      'https://internal.corp../',
      'https://internal。corp/',
      'https://internаl.corp/',
      'https://ınternal.corp/',
      'https://xn--nternal-qfb.corp/',
      'https://internal.cοrp/',
    ];
    const before = ran.length;
    expect(await tryEach(`import { net } from '@capabilities/net';`, 'net.fetchUrl({ url: value })', variants)).toEqual(variants.map(() => 'POLICY_DENIED'));
    expect(ran.length).toBe(before);
  });

  it('denies paths that leave the allowed folder through symbolic links, and allows paths inside it', async () => {
    const outside = ['allowed/link-out/secret.txt', 'allowed/link-file', 'allowed/link-out/new.txt', 'allowed/dangling', 'allowed/link-out/../outside/secret.txt'];
    const before = ran.length;
    // Not join(): it would resolve the `..` as text, which is what the rule must not do.
    const codes = await tryEach(`import { files } from '@capabilities/files';`, 'files.deleteFile({ path: value })', outside.map((p) => `${project.dir}/${p}`));
    expect(codes).toEqual(outside.map(() => 'POLICY_DENIED'));
    expect(ran.length).toBe(before);
    const inside = await tryEach(`import { files } from '@capabilities/files';`, 'files.deleteFile({ path: value })', [project.path('allowed/sub/new.txt')]);
    expect(inside).toEqual(['ran']);
  });

  it('says why a path that cannot be resolved is denied', async () => {
    const result = await space.run(`
import { files } from '@capabilities/files';
try { await files.deleteFile({ path: ${JSON.stringify(project.path('allowed/dangling'))} }); } catch (error) { return (error as CapabilityError).message; }
`);
    expect(result.ok && result.result).toContain('goes through a symbolic link whose target does not exist');
  });
});

describe('rule keys are checked against the space', () => {
  const attempt = (extra: PoliciesConfig) =>
    createSpace({ rootDir: project.dir, capabilities: [CRM, files], handlers, typecheck: false, policies: extra }).then(
      async (created) => (await created.close(), undefined),
      (error: unknown) => error,
    );

  it.each([
    [{ rules: { 'company-crm.CreateTicket': 'deny' } }, 'company-crm.createTicket'],
    [{ rules: { 'COMPANY-CRM.createTicket': 'deny' } }, 'company-crm.createTicket'],
    [{ rules: { 'company-crm.createTickets': 'deny' } }, 'company-crm.createTicket'],
    [{ rules: { Files: 'ask' } }, 'files'],
    [{ rules: { 'files.delete_file': 'ask' } }, 'files.deleteFile'],
    [{ rateLimits: { 'company-crm.CreateTicket': { requests: 1, period: 'minute' } } }, 'company-crm.createTicket'],
    [{ rules: { STD: 'deny' } }, 'std'],
  ] as const)('refuses %j with CONFIG_INVALID naming %s', async (extra, closest) => {
    const error = await attempt(extra as PoliciesConfig);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { closest } });
  });

  it('refuses a malformed rule given to createSpace, not only one read from a config file', async () => {
    const error = await attempt({ rules: { files: [{ when: { path: { matches: '(', ignoreCase: true } }, then: 'deny' }] } });
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it.each([
    { rules: { files: [{ when: { path: { matches: '(' } }, then: 'deny' }] } },
    { rateLimits: { files: { requests: 0, period: 'minute' } } },
    { secrets: ['not a name'] },
    { audit: { keep: -1 } },
  ] as const)('refuses malformed policies %j also when the space brings its own policy hook', async (policies) => {
    const created = createSpace({ rootDir: project.dir, capabilities: [CRM, files], handlers, typecheck: false, policies: policies as PoliciesConfig, policy: { decide: () => ({ kind: 'allow' }) } });
    const error = await created.then(
      async (space) => (await space.close(), undefined),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { field: 'policies' } });
  });

  it('accepts keys by id, export name, generated and source name, and std', async () => {
    expect(await attempt({ rules: { 'company-crm.createTicket': 'ask', companyCrm: 'ask', 'files.deleteFile': 'deny', std: 'allow', '*': 'allow' } })).toBeUndefined();
  });
});
