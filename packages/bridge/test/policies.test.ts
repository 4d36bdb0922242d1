import { describe, expect, it } from 'vitest';
import { findPoliciesProblem, type PoliciesConfig } from '@agent-spaces/capabilities';
import { createBridge, createPolicy, type ApprovalRequest } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;

/** A mail + files space: `send` needs no approval by itself, `deleteFile` does, `read` never. */
function space(policies: PoliciesConfig, approve?: boolean) {
  const ran: string[] = [];
  const asked: ApprovalRequest[] = [];
  const mail = memoryCapability('mail', [
    { name: 'send', sourceName: 'send_mail', run: () => ran.push('send') },
    { name: 'read', run: () => ran.push('read') },
  ]);
  const files = memoryCapability('files', [
    { name: 'deleteFile', requiresApproval: true, approvalMessage: (p) => `Delete ${String(p.path)}?`, run: () => ran.push('deleteFile') },
  ]);
  const bridge = createBridge({
    capabilities: [mail, files],
    policy: createPolicy(policies),
    ...(approve === undefined ? {} : { onApproval: (request: ApprovalRequest) => (asked.push(request), approve) }),
  });
  const call = async (capability: string, fn: string, params: Record<string, unknown> = {}) => {
    const outcome = await bridge.call(msg(capability, fn, params), signal);
    return outcome.ok ? 'ran' : errorOf(outcome).code;
  };
  return { call, ran, asked };
}

describe('argument rules', () => {
  const sendRules: PoliciesConfig = {
    rules: { 'mail.send': [{ when: { to: { endsWith: '@example.com' } }, then: 'allow' }, { then: 'ask' }] },
  };

  it('allows sendEmail to @example.com without asking and asks for any other address', async () => {
    const { call, asked, ran } = space(sendRules, false);
    expect(await call('mail', 'send', { to: 'bob@example.com' })).toBe('ran');
    expect(asked).toHaveLength(0);
    expect(await call('mail', 'send', { to: 'eve@attacker.test' })).toBe('APPROVAL_DENIED');
    expect(asked.map((r) => r.params)).toEqual([{ to: 'eve@attacker.test' }]);
    expect(ran).toEqual(['send']);
  });

  it('denies deleteFile outside /tmp, even through .. segments, and asks inside it', async () => {
    const { call, asked, ran } = space(
      { rules: { 'files.deleteFile': [{ when: { path: { within: '/tmp' } }, then: 'ask' }, { then: 'deny' }] } },
      true,
    );
    expect(await call('files', 'deleteFile', { path: '/etc/passwd' })).toBe('POLICY_DENIED');
    expect(await call('files', 'deleteFile', { path: '/tmp/../etc/passwd' })).toBe('POLICY_DENIED');
    expect(await call('files', 'deleteFile', { path: 'tmp/relative' })).toBe('POLICY_DENIED');
    expect(await call('files', 'deleteFile', { path: '/tmpfoo/x' })).toBe('POLICY_DENIED');
    expect(await call('files', 'deleteFile', { path: '/tmp/scratch.txt' })).toBe('ran');
    expect(asked.map((r) => r.message)).toEqual(['Delete /tmp/scratch.txt?']);
    expect(ran).toEqual(['deleteFile']);
  });

  it('lets a plain action override requiresApproval for a whole capability', async () => {
    const { call, asked } = space({ rules: { files: 'allow' } });
    expect(await call('files', 'deleteFile', { path: '/x' })).toBe('ran');
    expect(asked).toHaveLength(0);
  });

  it('prefers the function key over the capability key over "*"', async () => {
    const { call } = space({ rules: { '*': 'deny', mail: 'ask', 'mail.read': 'allow' } }, false);
    expect(await call('mail', 'read')).toBe('ran');
    expect(await call('mail', 'send')).toBe('APPROVAL_DENIED');
    expect(await call('files', 'deleteFile', { path: '/tmp/a' })).toBe('POLICY_DENIED');
  });

  it('matches the function by its source name and the capability by its export name', async () => {
    const { call } = space({ rules: { 'mail.send_mail': 'deny' } });
    expect(await call('mail', 'send')).toBe('POLICY_DENIED');
  });

  it('falls through to the next key when no rule of a list matches', async () => {
    const { call, ran } = space({ rules: { 'mail.send': [{ when: { to: 'boss@example.com' }, then: 'deny' }], mail: 'allow' } });
    expect(await call('mail', 'send', { to: 'boss@example.com' })).toBe('POLICY_DENIED');
    expect(await call('mail', 'send', { to: 'team@example.com' })).toBe('ran');
    expect(ran).toEqual(['send']);
  });

  it.each([
    [{ count: { lt: 10 } }, { count: 3 }, true],
    [{ count: { lt: 10 } }, { count: 10 }, false],
    [{ count: { gte: 1, lte: 2 } }, { count: 2 }, true],
    [{ count: { gt: 5 } }, { count: '9' }, false],
    [{ to: { oneOf: ['a@x.io', 'b@x.io'] } }, { to: 'b@x.io' }, true],
    [{ to: { includes: 'admin' } }, { to: 'root-admin@x.io' }, true],
    [{ to: { startsWith: 'ops' } }, { to: 'dev@x.io' }, false],
    [{ to: { matches: '^[a-z]+@x\\.io$', ignoreCase: false } }, { to: 'dev@x.io' }, true],
    [{ to: { matches: '^[a-z]+@x\\.io$', ignoreCase: false } }, { to: 'Dev@y.io' }, false],
    [{ cc: { exists: false } }, { to: 'a' }, true],
    [{ cc: { exists: true } }, { to: 'a' }, false],
    [{ 'meta.urgent': true }, { meta: { urgent: true } }, true],
    [{ 'meta.urgent': true }, { meta: { urgent: 'true' } }, false],
    [{ tags: { equals: ['a', 'b'] } }, { tags: ['a', 'b'] }, true],
    [{ constructor: { exists: true } }, { to: 'a' }, false],
    [{ 'to.length': 1 }, { to: 'a' }, false],
    [{ to: 'a', cc: 'b' }, { to: 'a', cc: 'c' }, false],
  ])('rule when %j on params %j matches: %s', async (when, params, matches) => {
    const { call } = space({ rules: { 'mail.send': [{ when, then: 'deny' }, { then: 'allow' }] } });
    expect(await call('mail', 'send', params)).toBe(matches ? 'POLICY_DENIED' : 'ran');
  });

  it('names the deciding rule in the decision', () => {
    const policy = createPolicy({ rules: { 'mail.send': [{ when: { to: 'x' }, then: 'allow' }, { then: 'deny' }] } });
    const capability = memoryCapability('mail', [{ name: 'send' }]);
    const call = { id: '1', capability, function: capability.functions.get('send')!, params: { to: 'y' }, signal };
    expect(policy.decide(call)).toEqual({ kind: 'deny', reason: 'denied by policies.rules["mail.send"][1]', by: 'policies.rules["mail.send"][1]' });
  });
});

describe('headless modes (toolPermission)', () => {
  const rules: PoliciesConfig['rules'] = { 'mail.read': 'deny' };

  it('never: runs everything no rule denies, without asking', async () => {
    const { call, asked } = space({ toolPermission: 'never', rules }, false);
    expect(await call('mail', 'send')).toBe('ran');
    expect(await call('files', 'deleteFile', { path: '/x' })).toBe('ran');
    expect(await call('mail', 'read')).toBe('POLICY_DENIED');
    expect(asked).toHaveLength(0);
  });

  it('tool: without an approver, runs only calls that need no approval', async () => {
    const { call, ran } = space({ toolPermission: 'tool', rules });
    expect(await call('mail', 'send')).toBe('ran');
    expect(await call('files', 'deleteFile', { path: '/x' })).toBe('APPROVAL_DENIED');
    expect(await call('mail', 'read')).toBe('POLICY_DENIED');
    expect(ran).toEqual(['send']);
  });

  it('always: without an approver nothing runs; with one, every call is asked', async () => {
    const headless = space({ toolPermission: 'always' });
    expect(await headless.call('mail', 'send')).toBe('APPROVAL_DENIED');
    expect(await headless.call('mail', 'read')).toBe('APPROVAL_DENIED');
    expect(headless.ran).toEqual([]);
    const attended = space({ toolPermission: 'always', rules }, true);
    expect(await attended.call('mail', 'send')).toBe('ran');
    expect(await attended.call('mail', 'read')).toBe('POLICY_DENIED');
    expect(attended.asked.map((r) => `${r.capability}.${r.function}`)).toEqual(['mail.send']);
  });
});

describe('findPoliciesProblem', () => {
  it.each([
    [{ toolPermission: 'sometimes' }, 'policies.toolPermission: must be one of never, tool, always'],
    [{ rules: { 'mail.send': 'maybe' } }, 'policies.rules["mail.send"]: must be allow, ask, deny or a list of rules'],
    [{ rules: { 'a..b': 'allow' } }, `policies.rules["a..b"]: the key must be '*', '<capability>' or '<capability>.<function>'`],
    [{ rules: { '.send': 'allow' } }, `policies.rules[".send"]: the key must be '*', '<capability>' or '<capability>.<function>'`],
    [{ rules: { mail: [{ when: { to: { endWith: 'x' } }, then: 'allow' }] } }, 'policies.rules["mail"][0].when["to"]: unknown operator "endWith"'],
    [{ rules: { mail: [{ then: 'yes' }] } }, 'policies.rules["mail"][0].then: must be allow, ask or deny'],
    [{ rules: { mail: [{ when: { p: { within: 'tmp' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: within must be an absolute path'],
    [{ rules: { mail: [{ when: { p: { matches: '(', ignoreCase: true } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: matches is not a regular expression'],
    [{ rules: { mail: [{ when: { p: { matches: 'rival' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: matches needs ignoreCase: true or false'],
    [{ rules: { mail: [{ when: { p: { matches: 'rival', ignoreCase: 'yes' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: ignoreCase must be a boolean'],
    [{ rules: { mail: [{ when: { p: { host: 'a b.com' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: host must be a host name or a list of them, not "a b.com"'],
    [{ rules: { mail: [{ when: { p: { domain: [] } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: domain must be a domain name or a non-empty list of them'],
    [{ rules: { mail: [{ when: { p: { emailDomain: ['ok.com', 7] } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: emailDomain must be a domain name or a list of them, not 7'],
    [{ rules: { mail: [{ when: { p: { email: 'a@x.com, b@y.com' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: email must be one e-mail address or a list of them'],
    [{ rules: { mail: [{ when: { p: { within: '/tmp/\0x' } }, then: 'deny' }] } }, 'policies.rules["mail"][0].when["p"]: within must be an absolute path'],
    [{ rateLimits: { mail: { requests: 0, period: 'minute' } } }, 'policies.rateLimits["mail"].requests: must be a positive integer'],
    [{ rateLimits: { mail: { requests: 1, period: 'week' } } }, 'policies.rateLimits["mail"].period'],
    [{ secrets: ['OK', 'not ok'] }, 'policies.secrets: must be an array of environment variable names'],
    [{ approvalTimeoutMs: -1 }, 'policies.approvalTimeoutMs: must be a positive number'],
    [{ audit: 'yes' }, 'policies.audit: must be true, false, "fsync" or { fsync?, maxBytes?, keep? }'],
    [{ audit: { maxBytes: 100 } }, 'policies.audit.maxBytes: must be an integer of at least 4096 (bytes)'],
    [{ audit: { keep: -1 } }, 'policies.audit.keep: must be an integer >= 0'],
    [{ audit: { fsync: 'yes' } }, 'policies.audit.fsync: must be a boolean'],
    [{ audit: { rotate: true } }, 'policies.audit.rotate: unknown key (known: fsync, maxBytes, keep)'],
    [{ approveScripts: 'yes' }, 'policies.approveScripts: must be a boolean'],
    [{ colour: 'red' }, 'policies.colour: unknown key'],
  ])('rejects %j naming the field', (value, expected) => {
    expect(findPoliciesProblem(value)).toContain(expected);
  });

  it('accepts a full, valid config', () => {
    expect(
      findPoliciesProblem({
        toolPermission: 'tool',
        rules: { '*': 'allow', 'mail.send': [{ when: { to: { endsWith: '@example.com' }, n: { lt: 3 } }, then: 'allow' }, { then: 'ask' }] },
        approvalTimeoutMs: 1000,
        rateLimits: { mail: { requests: 5, period: 'minute' }, 'mail.send': { requests: 1, period: 250 } },
        rateLimitMaxWaitMs: 0,
        secrets: ['API_TOKEN'],
        audit: false,
        approveScripts: true,
      }),
    ).toBeUndefined();
    expect(findPoliciesProblem({ audit: { fsync: true, maxBytes: 1024 * 1024, keep: 0 } })).toBeUndefined();
  });
});
