/**
 * A fake `fetch` for the core's file-transfer tests (Node): installed before each test of the file
 * that calls {@link fakeFetchHooks}, restored after it. Each call is recorded; `answer` decides the
 * response (by default, none is expected and the fetch fails).
 */
import { afterEach, beforeEach } from 'node:test';

export type FetchCall = { url: string; init: RequestInit };

export const fakeFetch = {
  calls: [] as FetchCall[],
  answer: (_url: string, _init: RequestInit): Promise<Response> =>
    Promise.reject(new TypeError('no fetch expected in this test')),
};

/** A JSON response with `status`. */
export const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export function fakeFetchHooks(): void {
  const realFetch = globalThis.fetch;
  beforeEach(() => {
    fakeFetch.calls = [];
    fakeFetch.answer = () => Promise.reject(new TypeError('no fetch expected in this test'));
    globalThis.fetch = ((url: RequestInfo | URL, init?: RequestInit) => {
      fakeFetch.calls.push({ url: String(url), init: init ?? {} });
      return fakeFetch.answer(String(url), init ?? {});
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });
}
