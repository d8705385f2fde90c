/**
 * Before `pedelec-dev mcp` sends its token to the server on a port, the server proves it holds that
 * token — without either side sending it: the relay sends a random nonce, the server answers an HMAC of
 * the nonce and the port it was asked on, keyed with the token, and the relay checks it with its own
 * copy. A process squatting the port (the real server stopped, or never started) cannot answer, so it
 * learns nothing reusable; nor can it pass on a real server's answer from another port, since the
 * port is part of what is signed.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { plain } from '../http/http-routes.js';

export const PROOF_PATH = '/_pedelec/mcp-proof';
const NONCE = /^[0-9a-f]{32}$/;

const proofOf = (token: string, port: number, nonce: string) =>
  createHmac('sha256', token).update(`pedelec-dev mcp proof ${port} ${nonce}`).digest('hex');

/** The server's side: the proof for the nonce asked, on the port it was asked on; desktop processes only. */
export function answerProof(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, token: string): void {
  // Only the relay asks; a browser page (it sends an Origin) has no use for a proof.
  if (req.headers.origin !== undefined) return plain(res, 403, 'Not for browsers.');
  const nonce = query.get('nonce') ?? '';
  if (!NONCE.test(nonce)) return plain(res, 400, 'Send nonce: 32 hex characters.');
  const proof = proofOf(token, req.socket.localPort ?? 0, nonce);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ proof }));
}

/**
 * The relay's side: whether the server at `base` (`http://host:port`) proves it holds `token`.
 * `unreachable` when nothing answers there, `absent` when what answers is not a `pedelec-dev --mcp`
 * (no proof route), `false` when it answers a wrong proof.
 */
export async function serverProves(base: URL, token: string): Promise<boolean | 'unreachable' | 'absent'> {
  const nonce = randomBytes(16).toString('hex');
  let response: Response;
  try {
    response = await fetch(new URL(`${PROOF_PATH}?nonce=${nonce}`, base), { signal: AbortSignal.timeout(5000) });
  } catch {
    return 'unreachable';
  }
  const body = (await response.json().catch(() => null)) as { proof?: unknown } | null;
  if (response.status === 404) return 'absent';
  if (!response.ok || typeof body?.proof !== 'string') return false;
  const expected = Buffer.from(proofOf(token, Number(base.port || 80), nonce));
  const given = Buffer.from(body.proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
