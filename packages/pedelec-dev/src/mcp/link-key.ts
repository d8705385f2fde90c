/**
 * The page link's key (docs/mcp.md, "Security model"): a page's link on `/tools` is taken only with it,
 * so a site the user happens to visit cannot hand its tools to the user's MCP clients.
 *
 * The key is derived from the MCP token (an HMAC, so it reveals nothing of the token): it lives exactly
 * as long as the token, in the same file under the same rules, and needs no file of its own.
 * Pages `pedelec-dev` serves fetch it from {@link LINK_KEY_PATH}, which answers its own origins only
 * (the inspector's guard); any other page is given it by its developer, through the session's `mcpKey`
 * property.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINK_KEY_PATH } from 'pedelec-elements/protocol';
import { plain } from '../http/http-routes.js';

export { LINK_KEY_PATH };

/** The link key that goes with `token`. */
export const linkKeyOf = (token: string): string =>
  createHmac('sha256', token).update('pedelec-dev page link key').digest('hex').slice(0, 32);

/** Whether `given` (a page's `hello.key`) is `key`, compared in constant time. */
export function isLinkKey(given: unknown, key: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /_pedelec/link-key` from a page this server served: the key. A browser sends an `Origin` with
 * every POST, and a page cannot forge it, so another site's page is refused; so is a request without
 * one (not a page).
 */
export function answerLinkKey(
  req: IncomingMessage,
  res: ServerResponse,
  ownOrigins: ReadonlySet<string>,
  key: string,
): void {
  if (req.method !== 'POST') return plain(res, 405, 'POST only.');
  const origin = req.headers.origin;
  if (origin === undefined || !ownOrigins.has(origin))
    return plain(res, 403, 'Only pages pedelec-dev serves get the link key; give others mcpKey.');
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ key }));
}

/** MCP is off: there is no key, said as an answer (a refused request would fill the page's console). */
export function noLinkKey(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ key: null }));
}
