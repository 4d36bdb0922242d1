import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, createRedactor } from '../src/index.js';

/** Secrets with the characters encoders escape: quotes, backslashes, slashes, control characters, non-ASCII, astral. */
const HOSTILE = ['p"ss\\w0rd', 'a\\"b\\\\c"d', 'line1\nline2\ttab', 'tök€n-ünïcode', 'emoji-😀-key', 'sl/ash<&>\'', 'sp ace+plus%25'];

const redactorOf = (secret: string) => createRedactor(new Map([['SECRET', secret]]));

/** The forms a secret takes on its way back from an API, a log line or a serializer. */
function encodings(secret: string): Record<string, string> {
  const json = JSON.stringify(secret).slice(1, -1);
  const bytes = Buffer.from(secret);
  return {
    raw: secret,
    json,
    'json twice': JSON.stringify(json).slice(1, -1),
    'json ascii-only (lowercase hex)': json.replace(/[^\x20-\x7e]/gu, (c) => unicode(c, false)),
    'json ascii-only (uppercase hex)': json.replace(/[^\x20-\x7e]/gu, (c) => unicode(c, true)),
    'json every non-alphanumeric as \\u': [...secret].map((c) => (/[A-Za-z0-9]/.test(c) ? c : unicode(c, false))).join(''),
    'json with escaped slashes': json.replace(/\//g, '\\/'),
    'url component': encodeURIComponent(secret),
    'url lowercase hex': encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    'url every byte': [...bytes].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join(''),
    'form encoding': new URLSearchParams({ x: secret }).toString().slice(2),
    base64: bytes.toString('base64'),
    'base64 url-safe': bytes.toString('base64url'),
    'base64 inside basic auth (offset 1)': Buffer.from(`u:${secret}`).toString('base64'),
    'base64 inside basic auth (offset 2)': Buffer.from(`us:${secret}`).toString('base64'),
    'base64 url-safe at offset 1': Buffer.from(`x${secret}yz`).toString('base64url'),
  };
}

function unicode(char: string, upper: boolean): string {
  let out = '';
  for (let i = 0; i < char.length; i++) {
    const hex = char.charCodeAt(i).toString(16).padStart(4, '0');
    out += `\\u${upper ? hex.toUpperCase() : hex}`;
  }
  return out;
}

describe('a secret in every form', () => {
  for (const secret of HOSTILE) {
    it(`redacts ${JSON.stringify(secret)} raw, JSON-escaped, URL-encoded and base64`, () => {
      const redactor = redactorOf(secret);
      for (const [form, encoded] of Object.entries(encodings(secret))) {
        const out = redactor.text(`before ${encoded} after`);
        expect(out, form).toContain('[REDACTED:SECRET]');
        if (!form.startsWith('base64')) expect(out, form).toBe('before [REDACTED:SECRET] after');
      }
    });
  }

  it('keeps JSON valid when the secret is replaced inside a JSON string', () => {
    for (const secret of HOSTILE) {
      const out = redactorOf(secret).text(JSON.stringify({ token: secret, nested: JSON.stringify({ again: secret }) }));
      expect(JSON.parse(out)).toEqual({ token: '[REDACTED:SECRET]', nested: JSON.stringify({ again: '[REDACTED:SECRET]' }) });
    }
  });

  it('leaves text that merely shares part of the secret alone', () => {
    const redactor = redactorOf('p"ss\\w0rd');
    for (const text of ['p"ss', 'pss\\w0rd', 'p\\"ss\\w1rd', 'P"SS\\W0RD', 'cCJzc1x3MH']) expect(redactor.text(text)).toBe(text);
  });
});

describe('secrets in binary values', () => {
  const secret = 'tok-9f8e7d"6c5b\\4a';
  const redactor = redactorOf(secret);
  const clean = (bytes: ArrayBufferLike | ArrayBufferView) => {
    const text = Buffer.from(ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes)).toString('latin1');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString('base64').slice(0, 16));
    return text;
  };

  it('replaces the bytes of a Buffer, Uint8Array and ArrayBuffer, keeping the type', () => {
    const buffer = redactor.value(Buffer.from(`x${secret}y`));
    expect(Buffer.isBuffer(buffer)).toBe(true);
    expect(buffer.toString()).toBe('x[REDACTED:SECRET]y');
    const array = redactor.value(new TextEncoder().encode(`{"t":${JSON.stringify(secret)}}`));
    expect(array).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(array)).toBe('{"t":"[REDACTED:SECRET]"}');
    const raw = redactor.value(new TextEncoder().encode(secret).buffer);
    expect(raw).toBeInstanceOf(ArrayBuffer);
    expect(clean(raw)).toBe('[REDACTED:SECRET]');
  });

  it('replaces the secret in other views, UTF-16 and base64 bytes, and inside structures', () => {
    const utf16 = Uint16Array.from([...secret].map((c) => c.charCodeAt(0)));
    const out = redactor.value({
      utf16,
      view: new DataView(Buffer.from(`..${secret}..`).buffer.slice(0)),
      nested: [Buffer.from(Buffer.from(secret).toString('base64'))],
      floats: new Float64Array(Buffer.from(`${secret}xxxxxx`).buffer.slice(0, 24)),
    });
    expect(out.utf16).toBeInstanceOf(Uint16Array);
    for (const value of [out.utf16, out.view, out.nested[0]!, out.floats]) clean(value);
    expect(out.floats.byteLength % 8).toBe(0);
  });

  it('returns binary data without the secret as it is', () => {
    const bytes = Buffer.from('nothing to see');
    expect(redactor.value(bytes)).toBe(bytes);
  });
});

describe('the minimum length', () => {
  it(`redacts values of ${MIN_SECRET_LENGTH} characters or more only`, () => {
    const redactor = createRedactor(new Map([['ONE', '1'], ['PORT', '8080'], ['FLAG', 'true'], ['FIVE', 'abcde'], ['SIX', 'abcdef']]));
    expect(redactor.names).toEqual(['SIX']);
    expect(redactor.text('within 10000 ms, port 8080, true, abcde, abcdef')).toBe('within 10000 ms, port 8080, true, abcde, [REDACTED:SIX]');
  });

  it('replaces the longer secret first when one contains another', () => {
    const nested = createRedactor(new Map([['INNER', 'abcdef'], ['OUTER', 'xxabcdefxx']]));
    expect(nested.text('xxabcdefxx abcdef')).toBe('[REDACTED:OUTER] [REDACTED:INNER]');
  });
});
