// How policy rules read strings: each family of look-alikes an attacker may try reads as the plain value.
import { describe, expect, it } from 'vitest';
import { addressSpellings, canonicalHost, emailAddresses, foldCase, hostOf, hostSkeleton, normalizeText } from '../src/index.js';

/** Spellings of `rival` that render or compare like it. */
const RIVAL_LOOKALIKES = [
  'rival',
  ' rival',
  'rival\t',
  '\u00a0rival\u3000',
  'r\u200bival',
  'r\u200civ\u200dal',
  'ri\u2060val',
  '\ufeffrival',
  'ri\u00adval',
  'r\u034fival',
  'riv\ufe0fal',
  'rival\u{e0020}',
  'r\u180eival',
  'ｒｉｖａｌ',
  '𝐫𝐢𝐯𝐚𝐥',
  '𝓇𝒾𝓋𝒶𝓁',
  'ⓡⓘⓥⓐⓛ',
  '\u202erival\u202c',
  'ri\u200evAl'.replace('A', 'a'),
];

describe('normalizeText', () => {
  it.each(RIVAL_LOOKALIKES)('reads %j as "rival"', (text) => {
    expect(normalizeText(text)).toBe('rival');
  });

  it('makes runs of whitespace one space and composes characters', () => {
    expect(normalizeText('rm \t\u3000 -rf')).toBe('rm -rf');
    expect(normalizeText('e\u200d\u0301')).toBe('é');
    expect(normalizeText('ﬁle')).toBe('file');
  });

  it('returns plain ASCII unchanged', () => {
    const text = 'team@example.com';
    expect(normalizeText(text)).toBe(text);
  });
});

describe('foldCase', () => {
  it.each([
    ['RIVAL', 'rival'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['ſtop', 'stop'],
  ])('folds %j to %j', (text, folded) => {
    expect(foldCase(text)).toBe(folded);
  });
});

describe('canonicalHost', () => {
  it.each([
    ['rival.com', 'rival.com'],
    ['RIVAL.COM', 'rival.com'],
    ['rival.com.', 'rival.com'],
    ['rival.com..', 'rival.com'],
    ['rival.com:8443', 'rival.com'],
    [' rival.com ', 'rival.com'],
    ['ri\u200bval.com', 'rival.com'],
    ['ｒｉｖａｌ．ｃｏｍ', 'rival.com'],
    ['riv%61l.com', 'rival.com'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example.', 'xn--bcher-kva.example'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['[::1]', '[::1]'],
  ])('reads %j as %j', (text, host) => {
    expect(canonicalHost(text)).toBe(host);
  });

  it.each(['', ' ', 'ok.com/@rival.com', 'user@rival.com', 'rival.com?x', 'rival.com#x', 'a b.com', '*.rival.com', 'rival.com\0', 'ri\\val.com'])(
    'reads %j as no host',
    (text) => {
      expect(canonicalHost(text)).toBeUndefined();
    },
  );
});

describe('hostOf', () => {
  it.each([
    ['https://API.rival.com./v1', 'api.rival.com'],
    ['https://ok.com@rival.com/', 'rival.com'],
    ['HTTPS://rival.com:443/x?y#z', 'rival.com'],
    ['ftp://RIVAL.com/', 'rival.com'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['api.rival.com', 'api.rival.com'],
    ['ｈｔｔｐｓ://ｒｉｖａｌ.com/', 'rival.com'],
  ])('reads the host of %j as %j', (value, host) => {
    expect(hostOf(value)).toBe(host);
  });

  it.each(['//rival.com/x', 'https://', 'not a host'])('reads %j as no host', (value) => {
    expect(hostOf(value)).toBeUndefined();
  });
});

describe('emailAddresses', () => {
  it.each([
    ['x@rival.com', ['x@rival.com']],
    ['X@RIVAL.com', ['x@rival.com']],
    [' x@rival.com. ', ['x@rival.com']],
    ['x@ｒｉｖａｌ.com', ['x@rival.com']],
    ['x@ri\u200bval.com', ['x@rival.com']],
    ['Bob <bob@rival.com>', ['bob@rival.com']],
    ['"Doe, J" <j@rival.com>', ['j@rival.com']],
    ['mailto:x@rival.com', ['x@rival.com']],
    ['MAILTO:x@rival.com?subject=hi', ['x@rival.com']],
    ['mailto:x%40rival.com', ['x@rival.com']],
    ['a@ok.com, b@rival.com', ['a@ok.com', 'b@rival.com']],
    ['a@ok.com;b@rival.com', ['a@ok.com', 'b@rival.com']],
    ['ok.com@rival.com', ['ok.com@rival.com']],
    ['x@bücher.example', ['x@xn--bcher-kva.example']],
  ])('reads %j as %j', (value, addresses) => {
    expect(emailAddresses(value)).toEqual(addresses);
  });

  it.each(['', 'bob', '@rival.com', 'bob@', 'a@ok.com,', 'mailto:%E0%A4%A', 'bob@rival.com/x'])('reads %j as unreadable', (value) => {
    expect(emailAddresses(value)).toBeUndefined();
  });
});

describe('long values', () => {
  // Every reading is linear in the length of the value: a quadratic one would hold the host on values like these.
  const long = 1 << 20;
  it.each([
    ['dots', '.'.repeat(long) + 'x'],
    ['hyphens', `a${'-'.repeat(long)}!`],
    ['labels', `${'a.'.repeat(long / 2)}!`],
    ['angle brackets', '<a'.repeat(long / 2)],
    ['quotes and commas', '",'.repeat(long / 2)],
  ])('reads a MiB of %s', (_, value) => {
    expect(canonicalHost(value)).toBeUndefined();
    expect(emailAddresses(value)).toBeUndefined();
    expect(hostOf(value)).toBeUndefined();
    expect(addressSpellings(value).join('').length).toBeLessThanOrEqual(value.length);
    expect(normalizeText(value).length).toBeGreaterThan(0);
  });
});

// Issue 25: trailing dots, look-alike letters of other scripts, NUL and quoted local parts.
describe('names that mix scripts or hold control characters cannot be read', () => {
  it.each([
    ['rivаl.com', 'a Cyrillic а among Latin letters'],
    ['rival.cοm', 'a Greek omicron in the top-level label'],
    ['RIVАL.COM.', 'an upper-case Cyrillic А'],
    ['xn--rivl-73d.com', 'the punycode of a mixed label'],
    ['rivаl。com', 'with an ideographic full stop'],
    ['rival.com\u0000', 'a NUL'],
    ['rival.com\u001b', 'an escape'],
  ])('reads %j (%s) as no host', (value) => {
    expect(canonicalHost(value)).toBeUndefined();
    expect(hostOf(`https://${value}/`)).toBeUndefined();
    expect(emailAddresses(`x@${value}`)).toBeUndefined();
  });

  it.each<[string, string | undefined, string]>([
    ['гіѵаӏ.com', 'xn--80af9h6ets.com', 'all Cyrillic'],
    ['ρаѕѕ.com', undefined, 'Greek and Cyrillic in one label'],
    ['東京tokyo.jp', 'xn--tokyo-w91hq39l.jp', 'Han with Latin, as UTS #39 allows'],
    ['bücher.example', 'xn--bcher-kva.example', 'Latin with a diacritic'],
  ])('reads %j as %j (%s)', (text, host) => {
    expect(canonicalHost(text)).toBe(host);
  });

  it.each(['x\u0000@rival.org', '"x"@rival.org\u0000', 'mailto:x%40rival.org%00', 'x@rival.org\u0000.evil.org'])('reads the address %j as unreadable', (text) => {
    expect(emailAddresses(text)).toBeUndefined();
  });
});

describe('hostSkeleton', () => {
  it.each([
    ['xn--80af9h6ets.com', 'rival.com'],
    ['rival.com', 'rival.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['xn--nternal-qfb.corp', 'internal.corp'],
  ])('reads %j as %j', (host, skeleton) => {
    expect(hostSkeleton(host)).toBe(skeleton);
  });
});

describe('quoted local parts', () => {
  it.each([
    ['"x"@rival.org', ['x@rival.org']],
    ['"X"@RIVAL.org.', ['x@rival.org']],
    ['"x.y"@rival.org', ['x.y@rival.org']],
    ['"\\x"@rival.org', ['x@rival.org']],
    ['"x@y"@rival.org', ['"x@y"@rival.org']],
    ['"x y"@rival.org', ['"x y"@rival.org']],
    ['Bob <"x"@rival.org>', ['x@rival.org']],
  ])('reads %j as %j', (value, addresses) => {
    expect(emailAddresses(value)).toEqual(addresses);
  });
});

describe('addressSpellings', () => {
  it.each([
    ['x@rival.com.', ['x@rival.com']],
    ['x@RIVAL.COM..', ['x@RIVAL.COM']],
    ['x@rival。com', ['x@rival.com']],
    ['x@rivаl.com', ['x@rival.com']],
    ['x@rival.cοm', ['x@rival.com']],
    ['x@гіѵаӏ.com', ['x@rival.com']],
    ['x@XN--RIVL-73D.com', ['x@rival.com']],
    ['"x"@rival.org', ['x@rival.org']],
    ['x@rival.com\u0000.evil.org', ['x@rival.com', 'x@rival.com.evil.org']],
    ['a@ok.com, b@rivаl.com.', ['a@ok.com', 'b@rival.com']],
    ['rivаl.com.', ['rival.com']],
    ['https://rival.com/', []],
    ['not an address', []],
  ])('spells %j as %j', (text, spellings) => {
    expect(addressSpellings(text)).toEqual(spellings);
  });
});
