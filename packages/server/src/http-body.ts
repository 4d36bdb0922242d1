import type { IncomingMessage } from 'node:http';

/** A request body over its limit (the HTTP front door and the approvals API answer 413). */
export class BodyTooLarge extends Error {}

/**
 * The text of a request's body, at most `maxBytes`: rejects with {@link BodyTooLarge} past it (at once when
 * `content-length` says so). The stream is never destroyed: the rest of a body too large is read and dropped (node
 * drops an unread one itself once the response ends), so a keep-alive connection carries on after the 413.
 */
export function readBodyText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = () => new BodyTooLarge(`Payload too large: the request body is over ${maxBytes} bytes`);
  const declared = req.headers['content-length'];
  if (Number((Array.isArray(declared) ? declared[0] : declared) ?? 0) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      req.off('data', onData).off('end', onEnd).off('error', rejectBody);
      req.on('error', () => undefined).resume();
      rejectBody(tooLarge());
    };
    const onEnd = () => resolveBody(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData).on('end', onEnd).on('error', rejectBody);
  });
}
