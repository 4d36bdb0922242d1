import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { StringSchema } from '@agent-spaces/capabilities';
import type { HostFunction } from '@agent-spaces/bridge';
import type { HashAlgorithm } from '../sandbox/types.js';
import { stdFunction } from './define.js';

const algorithm: StringSchema = { type: 'string', enum: ['sha256', 'sha512', 'sha1', 'md5'] };
const encoding: StringSchema = { type: 'string', enum: ['hex', 'base64'] };

type Digest = { algorithm: HashAlgorithm; data: string; encoding?: 'hex' | 'base64' };

/** `crypto.hash`, `crypto.hmac` and `crypto.randomUUID` on the host. */
export function cryptoFunctions(): HostFunction[] {
  return [
    stdFunction<Digest>(
      'crypto.hash',
      { type: 'object', properties: { algorithm, data: { type: 'string' }, encoding }, required: ['algorithm', 'data'], additionalProperties: false },
      async ({ algorithm, data, encoding = 'hex' }) => createHash(algorithm).update(data, 'utf8').digest(encoding),
    ),
    stdFunction<Digest & { key: string }>(
      'crypto.hmac',
      {
        type: 'object',
        properties: { algorithm, key: { type: 'string' }, data: { type: 'string' }, encoding },
        required: ['algorithm', 'key', 'data'],
        additionalProperties: false,
      },
      async ({ algorithm, key, data, encoding = 'hex' }) => createHmac(algorithm, key).update(data, 'utf8').digest(encoding),
    ),
    stdFunction('crypto.randomUUID', { type: 'object', properties: {}, additionalProperties: false }, async () => randomUUID()),
  ];
}
