// The one capped reader of HTTP response bodies, over real web streams (the bridge's and std's tests read real
// servers through it).
import { describe, expect, it } from 'vitest';
import { readResponseBody } from '../src/index.js';

/** A response whose body arrives in `chunks`, recording whether the reader cancelled the rest. */
function streamed(chunks: Uint8Array[], headers: Record<string, string> = {}): { response: Response; cancelled: () => boolean; pulled: () => number } {
  let cancelled = false;
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers }), cancelled: () => cancelled, pulled: () => pulled };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readResponseBody', () => {
  it('decodes UTF-8 split across chunks as response.text() does', async () => {
    const euro = bytes('€'); // three bytes
    const { response } = streamed([bytes('a'), euro.subarray(0, 1), euro.subarray(1), bytes('b')]);
    expect(await readResponseBody(response, 100)).toEqual({ text: 'a€b', over: false });
  });

  it('reads a body of exactly the limit whole', async () => {
    const { response } = streamed([bytes('12345'), bytes('67890')]);
    expect(await readResponseBody(response, 10)).toEqual({ text: '1234567890', over: false });
  });

  it('stops past the limit with the first bytes, cancelling the rest unread', async () => {
    const { response, cancelled, pulled } = streamed([bytes('12345'), bytes('67890'), bytes('abcde'), bytes('fghij')]);
    expect(await readResponseBody(response, 7)).toEqual({ text: '1234567', over: true });
    expect(cancelled()).toBe(true);
    expect(pulled()).toBeLessThan(4);
  });

  it('reads nothing when content-length is over the limit, unless asked for the first bytes', async () => {
    const refused = streamed([bytes('x'.repeat(50))], { 'content-length': '50' });
    expect(await readResponseBody(refused.response, 10)).toEqual({ text: '', over: true });
    expect(refused.cancelled()).toBe(true);
    const prefix = streamed([bytes('x'.repeat(50))], { 'content-length': '50' });
    expect(await readResponseBody(prefix.response, 10, true)).toEqual({ text: 'x'.repeat(10), over: true });
  });

  it('gives an empty text for a response without a body', async () => {
    expect(await readResponseBody(new Response(null, { status: 204 }), 10)).toEqual({ text: '', over: false });
  });

  it('rejects as the stream does', async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection dropped'));
      },
    });
    await expect(readResponseBody(new Response(body), 10)).rejects.toThrow('connection dropped');
  });
});
