/**
 * The text of `response`'s body (UTF-8, as `response.text()` decodes it), reading at most `limit` bytes: past that the
 * rest is not read (the stream is cancelled) and `over` is true with the first `limit` bytes. When `content-length`
 * already says the body is longer, nothing is read unless `prefix` asks for those first bytes (an error's excerpt).
 * Rejects as the stream does (an abort, a dropped connection). The one capped reader of HTTP responses: the bridge's
 * HTTP and OpenAPI executors and std's `http.request` read with it.
 * @example
 * const { text, over } = await readResponseBody(await fetch(url), 1024 * 1024);
 */
export async function readResponseBody(response: Response, limit: number, prefix = false): Promise<{ text: string; over: boolean }> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (!response.body || (declared > limit && !prefix)) {
    await response.body?.cancel().catch(() => undefined);
    return { text: '', over: declared > limit };
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), over: false };
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      return { text: text + decoder.decode(value.subarray(0, limit - size)), over: true };
    }
    text += decoder.decode(value, { stream: true });
    size += value.byteLength;
  }
}
