/**
 * Who may talk to the development Core. Two independent checks:
 * - the `Host` header of every HTTP request and upgrade must name this machine (loopback names, plus
 *   an explicitly allowed remote host), which defeats DNS rebinding: a hostile site that points its own
 *   name at 127.0.0.1 still sends its own name as Host;
 * - the `Origin` of a request to one of the endpoints (`/bridge`, `/tools`, `/mcp`) must be on the
 *   allow-list, so a page on another site cannot drive sessions; when a request may come without one
 *   is decided by {@link checkOrigin}, the one place that knows the rules.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';

export { isLoopbackHost };

/** The host part of a Host header (`[::1]:7717` → `::1`, `localhost:7717` → `localhost`), lowercased. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  if (value === '') return null;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d+$/.test(rest)) return null;
    return value.slice(1, end);
  }
  const match = /^([^:]+)(?::\d+)?$/.exec(value);
  return match ? match[1] : null;
}

export class HostAllowList {
  private readonly extra = new Set<string>();

  constructor(extraHosts: readonly string[] = []) {
    for (const host of extraHosts) this.extra.add(host.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
  }

  allows(header: string | undefined): boolean {
    if (header === undefined) return false;
    const name = hostName(header);
    if (name === null) return false;
    return isLoopbackHost(name) || this.extra.has(name);
  }
}

/** One allowed origin: scheme and host exact, port exact or `*` (any, including the default). */
type OriginPattern = { protocol: string; host: string; port: string };

const PATTERN = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[^/:[\]\s]+)(?::(\d{1,5}|\*))?\/?$/;

/** Parses `http://localhost:*`, `https://app.test`, `http://127.0.0.1:5173`; throws on anything else. */
export function parseOriginPattern(text: string): OriginPattern {
  const match = PATTERN.exec(text.trim());
  if (!match) {
    throw new DevCoreError(
      'INVALID_ORIGIN',
      `--allow-origin ${text}: expected scheme://host[:port|:*], e.g. http://localhost:5173`,
    );
  }
  const [, protocol, host, port] = match;
  const defaultPort = protocol === 'https' ? '443' : '80';
  return {
    protocol,
    host: host.toLowerCase(),
    port: port === undefined ? defaultPort : port === '*' ? '*' : String(Number(port)),
  };
}

export const DEFAULT_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];

export class OriginAllowList {
  private readonly patterns: OriginPattern[];

  constructor(patterns: readonly string[]) {
    this.patterns = patterns.map(parseOriginPattern);
  }

  add(pattern: string): void {
    this.patterns.push(parseOriginPattern(pattern));
  }

  /** `origin` as sent by a browser (`http://localhost:5173`). `null`/"null" origins are not allowed. */
  allows(origin: string | undefined): boolean {
    if (origin === undefined || origin === 'null') return false;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    // Browsers send the canonical serialization; anything else (a path, userinfo) is not an origin.
    if (url.origin !== origin) return false;
    const protocol = url.protocol.replace(/:$/, '');
    const port = url.port || (protocol === 'https' ? '443' : '80');
    const host = url.hostname.toLowerCase();
    return this.patterns.some((p) => p.protocol === protocol && p.host === host && (p.port === '*' || p.port === port));
  }
}

/** The dev Core's endpoints, the only paths outside `/_pedelec/` and `--serve DIR`. */
export type EndpointPath = '/bridge' | '/tools' | '/mcp';

export type OriginRules = { origins: OriginAllowList; allowNoOrigin: boolean };

/** `origin` is the caller's origin as recorded with its sessions: `null` for a caller without one. */
export type OriginDecision = { allowed: true; origin: string | null } | { allowed: false; reason: string };

/**
 * Who may call an endpoint, by its `Origin` header (every-agent.md §4 "Security"):
 * - `/bridge` and `/tools` are for pages, and browsers always send an Origin: it must be on the
 *   allow-list. A request with none is a local script (the core SDK in Node with `ws`), accepted only
 *   under `--allow-no-origin` — else any local program could pass for a page nobody approved.
 * - `/mcp` is for desktop MCP clients, which send no Origin: none is fine, but any Origin a browser
 *   sent must be on the allow-list. (`/mcp` always requires its bearer token too; that is checked
 *   there, not here.)
 */
export function checkOrigin(path: EndpointPath, headers: IncomingHttpHeaders, rules: OriginRules): OriginDecision {
  const origin = headers.origin;
  if (origin === undefined) {
    if (path === '/mcp' || rules.allowNoOrigin) return { allowed: true, origin: null };
    return {
      allowed: false,
      reason:
        'No Origin header. Browsers always send one; for a local script (the core SDK in Node with ws), start pedelec-dev with --allow-no-origin.',
    };
  }
  if (!rules.origins.allows(origin))
    return { allowed: false, reason: `Origin not allowed: ${origin}. Add it with --allow-origin.` };
  return { allowed: true, origin };
}

/** At most this many bytes of reason fit in a WebSocket close frame. */
const MAX_CLOSE_REASON_BYTES = 123;

/**
 * Why a page's origin is refused, for the close frame the page receives ({@link checkOrigin} decides):
 * the flag that admits it. `--allow-origin` takes http(s) origins only; a page opened from a file (its
 * origin `null`) or of another scheme has to be served over http instead.
 */
export function originRefusedReason(origin: string): string {
  if (!/^https?:\/\//i.test(origin))
    return `origin ${origin.slice(0, 20)} cannot be allowed: serve the page over http, e.g. pedelec-dev --serve DIR`;
  const reason = `origin not allowed: start pedelec-dev with --allow-origin ${origin}`;
  return Buffer.byteLength(reason) <= MAX_CLOSE_REASON_BYTES
    ? reason
    : "origin not allowed: start pedelec-dev with --allow-origin and this page's origin";
}
