import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorOf, stdBridge, valueOf } from '../helpers.js';

const { call } = stdBridge({ workspaceDir: '/nonexistent/never-created' });

describe('crypto', () => {
  it.each([
    ['sha256', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['sha1', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ['md5', '900150983cd24fb0d6963f7d28e17f72'],
    [
      'sha512',
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    ],
  ])('hashes "abc" with %s to the FIPS / RFC 1321 vector', async (algorithm, hex) => {
    expect(valueOf(await call('crypto.hash', { algorithm, data: 'abc' }))).toBe(hex);
  });

  it('hashes UTF-8 text and writes base64 on request', async () => {
    expect(valueOf(await call('crypto.hash', { algorithm: 'sha256', data: 'abc', encoding: 'base64' }))).toBe(
      'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
    );
    const utf8 = createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex');
    expect(valueOf(await call('crypto.hash', { algorithm: 'sha256', data: '\u00e9' }))).toBe(utf8);
    expect(valueOf(await call('crypto.hash', { algorithm: 'sha256', data: '' }))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it.each([
    ['sha256', '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
    [
      'sha512',
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    ],
    ['sha1', 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79'],
    ['md5', '750c783e6ab0b503eaa86e310a5db738'],
  ])('computes HMAC-%s of the RFC 2202 / 4231 "Jefe" vector', async (algorithm, hex) => {
    expect(valueOf(await call('crypto.hmac', { algorithm, key: 'Jefe', data: 'what do ya want for nothing?' }))).toBe(hex);
  });

  it('makes distinct version 4 UUIDs', async () => {
    const ids = await Promise.all([1, 2, 3].map(async () => valueOf(await call('crypto.randomUUID')) as string));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses unknown algorithms and encodings and extra params', async () => {
    expect(errorOf(await call('crypto.hash', { algorithm: 'sha3-256', data: 'abc' })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('crypto.hash', { algorithm: 'sha256', data: 'abc', encoding: 'latin1' })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('crypto.hmac', { algorithm: 'sha256', data: 'abc' })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('crypto.randomUUID', { seed: 1 })).code).toBe('INVALID_PARAMS');
  });
});
