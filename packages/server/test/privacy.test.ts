import { describe, expect, it } from 'vitest';
import { createDetect, findAll, findCards, findEmails, luhn } from '../src/privacy/detectors.js';
import { parseServerConfig } from '../src/config.js';
import { PrivacyVault, SCAN_BUDGET, Tally, type Scan } from '../src/privacy/vault.js';

// The detectors and the vault of spaces[].privacy (docs/privacy.md); privacy.e2e.test.ts runs them over MCP.

const detect = await createDetect({});
const kinds = (text: string) => detect(text).map((f) => `${f.kind}:${text.slice(f.start, f.end)}`);

describe('detectors', () => {
  it('find e-mail addresses, and not what only looks like one', () => {
    expect(findEmails('a ann.lee+x@mail.acme.example, "bob@x.io". ').map((f) => f.kind)).toEqual(['EMAIL', 'EMAIL']);
    for (const text of ['a@b', '@@', 'x@localhost', 'user@.com', 'user@-x.com', '..@x.io', 'me@x.c']) expect(kinds(text)).toEqual([]);
  });

  it('find card numbers with a valid Luhn checksum only, grouped or not, a year after them cut off', () => {
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
    expect(kinds('4111 1111 1111 1111 2024-01-01')).toEqual(['CARD:4111 1111 1111 1111']);
    expect(kinds('5500-0055-5555-5559')).toEqual(['CARD:5500-0055-5555-5559']);
    // Wrong checksum, a timestamp (no card starts with 1), too long, a decimal fraction.
    for (const text of ['4111 1111 1111 1112', '1700000000000', '41111111111111111111111', '0.4111111111111111']) expect(findCards(text)).toEqual([]);
  });

  it('find IBANs with valid mod-97 check digits and country format, in either case', () => {
    expect(kinds('IBAN DE89 3704 0044 0532 0130 00 EUR')).toEqual(['IBAN:DE89 3704 0044 0532 0130 00']);
    expect(kinds('gb82west12345698765432')).toEqual(['IBAN:gb82west12345698765432']);
    for (const text of ['DE89 3704 0044 0532 0130 01', 'DE00370400440532013000', 'XX89370400440532013000']) expect(kinds(text)).toEqual([]);
  });

  it('find international phone numbers, and national ones only with a region; never dates', async () => {
    expect(kinds('call +1 415 555 2671 or +44 20 7946 0958')).toEqual(['PHONE:+1 415 555 2671', 'PHONE:+44 20 7946 0958']);
    expect(kinds('(415) 555-2671')).toEqual([]);
    const us = await createDetect({ phoneRegion: 'US' });
    const text = 'call (415) 555-2671 on 2024-01-01 12:00 or 12/31/2024';
    expect(us(text).map((f) => text.slice(f.start, f.end))).toEqual(['(415) 555-2671']);
  });

  it('run only the detectors chosen, custom patterns first on a tie', async () => {
    const only = await createDetect({ detectors: ['email'], patterns: [{ name: 'EMP', pattern: 'emp-[0-9]{3}', ignoreCase: true }] });
    const text = 'EMP-123 ann@x.io +1 415 555 2671 4111111111111111';
    expect(only(text).map((f) => f.kind)).toEqual(['EMP', 'EMAIL']);
  });

  it('resolve overlaps: the match starting first, then the longest, then the finder listed first', () => {
    const a = () => [{ start: 0, end: 4, kind: 'A' }, { start: 6, end: 8, kind: 'A' }];
    const b = () => [{ start: 2, end: 9, kind: 'B' }, { start: 6, end: 9, kind: 'B' }, { start: 0, end: 4, kind: 'B' }];
    expect(findAll('0123456789', [a, b])).toEqual([{ start: 0, end: 4, kind: 'A' }, { start: 6, end: 9, kind: 'B' }]);
  });

  it('stay linear on inputs built to slow regular expressions down', () => {
    for (const text of ['1 '.repeat(200_000), 'ab12 '.repeat(100_000), '@a'.repeat(200_000), 'a.'.repeat(200_000) + '@', '+('.repeat(200_000)]) {
      expect(detect(text)).toEqual([]);
    }
  });
});

describe('vault', () => {
  const scan = (): Scan => ({ detect, tally: new Tally(), remaining: SCAN_BUDGET });

  it('gives each value one token, restores only its own tokens, and escapes values written into code', () => {
    const vault = new PrivacyVault();
    const s = scan();
    expect(vault.tokenizeText('ann@x.io, bob@x.io, ann@x.io', s)).toBe('[EMAIL_1], [EMAIL_2], [EMAIL_1]');
    expect(s.tally.kinds()).toBe('EMAIL=3');
    const tally = new Tally();
    expect(vault.restoreText('[EMAIL_2] [EMAIL_3] [PHONE_1]', tally)).toBe('bob@x.io [EMAIL_3] [PHONE_1]');
    expect(tally.restored).toBe(1);
    expect(new PrivacyVault().restoreText('[EMAIL_1]', new Tally())).toBe('[EMAIL_1]');
    const quoted = new PrivacyVault();
    const custom: Scan = { ...scan(), detect: (text) => [{ start: 0, end: text.length, kind: 'NAME' }] };
    quoted.tokenizeText(`O'B"r\`\${x}\\n`, custom);
    expect(quoted.restoreText('[NAME_1]', new Tally(), true)).toBe('O\\u0027B\\u0022r\\u0060\\u0024\\u007bx\\u007d\\u005cn');
  });

  it('withholds strings past the scan budget and values nested too deeply', () => {
    const vault = new PrivacyVault();
    const s: Scan = { ...scan(), remaining: 10 };
    expect(vault.tokenizeData({ a: 'short', b: 'much longer text' }, s)).toEqual({ a: 'short', b: '[WITHHELD: 16 characters not scanned for personal data]' });
    let deep: unknown = 'ann@x.io';
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(JSON.stringify(vault.tokenizeData(deep, scan()))).toContain('WITHHELD: nested too deeply');
  });
});

describe('spaces[].privacy in the config', () => {
  const parse = (privacy: unknown) => parseServerConfig({ spaces: [{ id: 's', name: 'S', privacy }] }, 'agent-spaces.config.json');

  it('accepts true, false and settings', () => {
    expect(parse(true).spaces[0]!.privacy).toBe(true);
    expect(parse({ detectors: ['email'], phoneRegion: 'DE', patterns: [{ name: 'EMP_ID', pattern: 'EMP-[0-9]+' }] }).spaces[0]!.privacy).toMatchObject({ phoneRegion: 'DE' });
  });

  it.each([
    ['a lookahead (not RE2)', { patterns: [{ name: 'X', pattern: '(?=a)b' }] }, 'spaces[0].privacy.patterns[0].pattern'],
    ['a backreference', { patterns: [{ name: 'X', pattern: '(a)\\1' }] }, 'spaces[0].privacy.patterns[0].pattern'],
    ['a pattern too long', { patterns: [{ name: 'X', pattern: 'a'.repeat(201) }] }, 'spaces[0].privacy.patterns[0].pattern'],
    ['a lower-case name', { patterns: [{ name: 'x', pattern: 'a' }] }, 'spaces[0].privacy.patterns[0].name'],
    ['a built-in kind as name', { patterns: [{ name: 'EMAIL', pattern: 'a' }] }, 'spaces[0].privacy.patterns[0].name'],
    ['a duplicate name', { patterns: [{ name: 'X', pattern: 'a' }, { name: 'X', pattern: 'b' }] }, 'spaces[0].privacy.patterns[1].name'],
    ['an unknown detector', { detectors: ['ssn'] }, 'spaces[0].privacy'],
    ['a region that is not a code', { phoneRegion: 'Germany' }, 'spaces[0].privacy'],
  ])('refuses %s with CONFIG_INVALID naming the key', (_what, privacy, key) => {
    expect(() => parse(privacy)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ key: expect.stringContaining(key) }) }));
  });
});
