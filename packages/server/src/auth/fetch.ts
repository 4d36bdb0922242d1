/** Most bytes of a document the resource server reads from the issuer (its metadata, its JWKS). */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** How long a request to the issuer (its metadata, its JWKS) may take, in ms. */
export const FETCH_TIMEOUT_MS = 5_000;

/**
 * GETs `url` with the request `init` (its `signal` bounds the time; redirects as `init` says) and reads at most
 * {@link MAX_DOCUMENT_BYTES} of its body: a `Response` holding the body read, or a rejection naming the cap when the
 * body is larger. The issuer's documents are read through it, so a hostile or broken issuer costs bounded memory.
 */
export async function fetchBounded(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new Error(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_DOCUMENT_BYTES) throw new Error(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes`);
    chunks.push(chunk);
  }
  return new Response(response.status === 204 || response.status === 304 ? null : Buffer.concat(chunks), { status: response.status, headers: response.headers });
}
