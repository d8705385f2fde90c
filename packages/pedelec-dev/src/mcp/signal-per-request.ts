/**
 * A `fetch` for the MCP SDK's `StreamableHTTPClientTransport` (its `fetch` option) that keeps a
 * long-running client flat: each request gets an AbortSignal of its own, tied to the signal the
 * caller passed only while that request — its response body included — runs.
 *
 * Why: the SDK's transport (2.4.0, as 1.x did) hands the one AbortSignal of its connection-long
 * `AbortController` (aborted by `close()`) to every `fetch` it makes. Node's `fetch` (undici) adds an
 * `abort` listener to the signal a request is given and removes it only when that signal aborts or
 * when the request is garbage-collected (a FinalizationRegistry; nodejs/node#52635). So the
 * transport's signal gains a listener per MCP call until a full collection happens — past 1500
 * (undici's own limit for it) Node prints `MaxListenersExceededWarning` once per call. Here the
 * caller's signal only ever holds one listener per request in flight, removed when the request
 * ends; aborting it still aborts every request in flight, body reads included.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

export function fetchWithSignalPerRequest(baseFetch: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const shared = init?.signal;
    if (!shared) return baseFetch(url, init);
    const own = new AbortController();
    const forward = () => own.abort(shared.reason);
    const release = () => shared.removeEventListener('abort', forward);
    if (shared.aborted) forward();
    else shared.addEventListener('abort', forward, { once: true });
    let response: Response;
    try {
      response = await baseFetch(url, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    return withBodyEnd(response, response.body, release);
  };
}

/** `response` with a body that calls `ended` once it is read to its end, fails, or is cancelled. */
function withBodyEnd(response: Response, body: ReadableStream<Uint8Array>, ended: () => void): Response {
  const reader = body.getReader();
  const watched = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          ended();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        ended();
        controller.error(error);
      }
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  const copy = new Response(watched, { status, statusText, headers });
  // Where the response came from (after redirects), which a new Response cannot be given.
  Object.defineProperties(copy, { url: { value: response.url }, redirected: { value: response.redirected } });
  return copy;
}
