// Cost of the host gate per capability call (bridge.call, no sandbox): lookup + validation + default policy, then
// each feature added on top — argument rules (with ASCII params, with params normalization has to work on, and with
// the e-mail matchers), a rate limit, redaction of a ~1 KiB result, the fsync'd audit log.
// Build first (npm run build), then:
//   node bench/policies.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor } from '@agent-spaces/capabilities';
import { AuditLog, createBridge, createPolicy } from '@agent-spaces/bridge';

const CALLS = 5_000;
const AUDITED_CALLS = 1_000;
const ROUNDS = 5;
const signal = new AbortController().signal;
const result = { items: Array.from({ length: 20 }, (_, i) => ({ id: i, title: `item ${i} of the morning plan`, tags: ['a', 'b'] })) };
const capability = {
  id: 'mail',
  exportName: 'mail',
  config: {},
  functions: new Map([
    [
      'send',
      {
        name: 'send',
        sourceName: 'send',
        parameters: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } }, required: ['to'] },
        requiresApproval: false,
        execute: async () => result,
      },
    ],
  ]),
};
const rules = {
  '*': 'allow',
  mail: [{ when: { to: { matches: '@(rival|competitor)\\.com$', ignoreCase: true } }, then: 'deny' }],
  'mail.send': [
    { when: { to: { endsWith: '@example.com' }, subject: { exists: true } }, then: 'allow' },
    { when: { to: { oneOf: ['boss@corp.io', 'ceo@corp.io'] } }, then: 'ask' },
    { then: 'allow' },
  ],
};
// The same decisions with the matchers made for the job: e-mail domains and addresses.
const mailRules = {
  '*': 'allow',
  mail: [{ when: { to: { emailDomain: ['rival.com', 'competitor.com'] } }, then: 'deny' }],
  'mail.send': [
    { when: { to: { emailDomain: 'example.com' }, subject: { exists: true } }, then: 'allow' },
    { when: { to: { email: ['boss@corp.io', 'ceo@corp.io'] } }, then: 'ask' },
    { then: 'allow' },
  ],
};
const message = { kind: 'call', capability: 'mail', function: 'send', params: { to: 'team@example.com', subject: 'Trains' } };
// Params that normalization has to work on: a full-width address and a subject with spaces and an accent.
const unicodeMessage = { ...message, params: { to: 'ｔｅａｍ@example.com', subject: 'Trains à 8 h' } };

/** The best of {@link ROUNDS} rounds of `calls` sequential calls, in µs per call (the machine is shared: the best round is the least disturbed). */
async function perCallUs(bridge, calls, call = message) {
  for (let i = 0; i < 500; i++) await bridge.call(call, signal);
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      const outcome = await bridge.call(call, signal);
      if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    }
    best = Math.min(best, ((performance.now() - started) * 1000) / calls);
  }
  return best;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-policies-'));
try {
  const redactor = createRedactor(new Map([['API_TOKEN', 'tok-0123456789abcdef'], ['DB_PASSWORD', 'correct-horse-battery']]));
  const base = { capabilities: [capability] };
  // A result that gives the secrets back in three forms, so redaction has to copy and replace.
  const secretResult = { ...result, raw: 'Bearer tok-0123456789abcdef', json: JSON.stringify({ pw: 'correct-horse-battery' }), b64: btoa('u:tok-0123456789abcdef') };
  const send = capability.functions.get('send');
  const leaky = { capabilities: [{ ...capability, functions: new Map([['send', { ...send, execute: async () => secretResult }]]) }] };
  const rows = [
    ['lookup + validation + default policy', await perCallUs(createBridge(base), CALLS)],
    ['+ argument rules (5 rules, 3 keys)', await perCallUs(createBridge({ ...base, policy: createPolicy({ rules }) }), CALLS)],
    ['  same, non-ASCII params (normalized)', await perCallUs(createBridge({ ...base, policy: createPolicy({ rules }) }), CALLS, unicodeMessage)],
    ['  e-mail matchers instead (emailDomain, email)', await perCallUs(createBridge({ ...base, policy: createPolicy({ rules: mailRules }) }), CALLS)],
    ['+ rate limit (1e9 per day)', await perCallUs(createBridge({ ...base, policy: createPolicy({ rules }), rateLimits: { mail: { requests: 1e9, period: 'day' } } }), CALLS)],
    ['+ redaction of a 1.4 KiB result (2 secrets)', await perCallUs(createBridge({ ...base, policy: createPolicy({ rules }), redactor }), CALLS)],
    ['  same, secrets in it (raw, JSON, base64)', await perCallUs(createBridge({ ...leaky, policy: createPolicy({ rules }), redactor }), CALLS)],
  ];
  for (const fsync of [false, true]) {
    const log = new AuditLog(join(dir, `bench-${fsync}.jsonl`), 'bench', { fsync });
    const bridge = createBridge({ ...base, policy: createPolicy({ rules }), redactor, audit: log });
    rows.push([`+ audit log line, write${fsync ? ' + fsync' : ''}`, await perCallUs(bridge, AUDITED_CALLS)]);
    log.close();
  }

  const baseline = rows[0][1];
  console.log(`host gate, µs per call (best of ${ROUNDS} rounds of sequential bridge.call, ${CALLS} calls; ${AUDITED_CALLS} with the audit log)`);
  for (const [label, us] of rows) console.log(`  ${label.padEnd(46)} ${us.toFixed(1).padStart(8)} µs  (${(us / baseline).toFixed(2)}× baseline)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
