/**
 * The MCP page link's contract (docs/mcp.md, "The page link"): what a page and `pedelec-dev --mcp`
 * say to each other over the WebSocket at `/tools`, defined once for both — the kit's link client
 * (page-link-client.ts) and pedelec-dev's side of it, which imports it from pedelec-elements/protocol.
 * JSON text frames, typed here as discriminated unions on `type`; what each side enforces beyond the
 * shapes (pedelec-dev's limits, the page's validation of a call) is that side's own. No DOM.
 */
import type { PedelecError } from './errors.js';
import type { JsonValue } from './json.js';

/** The link version both sides speak: the page's `hello` names it; pedelec-dev refuses another. */
export const PAGE_LINK_VERSION = 1;

/**
 * Where a page pedelec-dev serves asks for the link key (`POST`, same origin): the key its `hello`
 * carries when the session has no `mcpKey`. Another site's page is refused it.
 */
export const LINK_KEY_PATH = '/_pedelec/link-key';

/**
 * The close code with which pedelec-dev refuses a link it will not serve: another link version, or
 * MCP not on. A page's origin that is not allowed is refused with the bridge's own 4003
 * (`ORIGIN_REFUSED_CLOSE_CODE`); both lie in {@link isLinkRefusal}'s range.
 */
export const LINK_REFUSED_CLOSE_CODE = 4400;

/**
 * Whether a close code says the link was refused (4000–4999): the page reports it once and does not
 * try again until its link URL changes. Any other close is a link that dropped, and is tried again.
 */
export const isLinkRefusal = (code: number): boolean => code >= 4000 && code < 5000;

/** A tool as the page publishes it: its manifest entry (the args schema as `inputSchema`) and hints. */
export type PageTool = {
  name: string;
  description: string;
  inputSchema: { [key: string]: JsonValue };
  title?: string;
  readOnly?: boolean;
  untrustedContent?: boolean;
  /**
   * A person must approve each call (the tool's `consequential`): pedelec-dev asks the MCP client's
   * user, else its operator, and sends the `call` only once approved, saying who approved it. The page
   * never asks: its own UI is not a surface an MCP client's agent cannot reach.
   */
  consequential?: boolean;
};

/** Who approved a consequential tool's call before pedelec-dev sent it. */
export type LinkApprover = 'mcp-client' | 'operator';

/**
 * A call's answer: the handler's result, or the error — the one the Pedelec agent would have received,
 * or why there is none (the page went away, the client cancelled).
 */
export type CallAnswer = { ok: true; result: JsonValue } | { ok: false; error: PedelecError };

/** Page → pedelec-dev, first and once: who the page is. */
export type HelloFrame = {
  type: 'hello';
  version: number;
  /** The page's label (`mcp-label`, else the session element's `id`); left out when it has none. */
  label?: string;
  /** The document's title. */
  title: string;
  /** The document's URL. */
  url: string;
  /** Set when the page is in a frame (its session has `allowFramed`). */
  framed?: true;
  /** In a frame: the top-level document's origin, when the page may read it. */
  topOrigin?: string;
  /** The link key (the session's `mcpKey`, or the one pedelec-dev gave the page it served). */
  key?: string;
};

/** Page → pedelec-dev, after `hello` and on every change: the tools it offers now. */
export type ToolsFrame = { type: 'tools'; tools: PageTool[] };

/** Page → pedelec-dev: the answer to the call `id`. */
export type ResultFrame = { type: 'result'; id: string } & CallAnswer;

/** What a page sends on the link. */
export type PageLinkFrame = HelloFrame | ToolsFrame | ResultFrame;

/** pedelec-dev → page: run `tool` (the page's own name for it) with `args`. */
export type CallFrame = {
  type: 'call';
  /** The call's id on this link: its `result` and any `cancel` name it. */
  id: string;
  tool: string;
  /** As the MCP client gave them (an object; `{}` for none), as approved: the page validates them. */
  args: unknown;
  /** A consequential tool's call: who approved it. Without it the page refuses such a call. */
  approvedBy?: LinkApprover;
};

/** pedelec-dev → page: the client cancelled the call `id`; no result is expected. */
export type CancelFrame = { type: 'cancel'; id: string };

/** What pedelec-dev sends on the link. */
export type ServerLinkFrame = CallFrame | CancelFrame;

/** The `result` frame of call `id` that answered `answer`. */
export const resultFrame = (id: string, answer: CallAnswer): ResultFrame =>
  answer.ok
    ? { type: 'result', id, ok: true, result: answer.result }
    : { type: 'result', id, ok: false, error: answer.error };

/**
 * The answer a `result` frame carries: `ok: true` with a `result`, or `ok: false` with an error that
 * has a string `code` and `message`; `null` for anything else.
 */
export function answerOf(frame: { [key: string]: unknown }): CallAnswer | null {
  if (frame.ok === true && 'result' in frame) return { ok: true, result: frame.result as JsonValue };
  const error = frame.error as Partial<PedelecError> | null | undefined;
  if (frame.ok === false && typeof error?.code === 'string' && typeof error.message === 'string')
    return { ok: false, error: error as PedelecError };
  return null;
}

/**
 * A frame pedelec-dev sent, read from the socket's `data`: a `call` (string `id` and `tool`) or a
 * `cancel` (string `id`); `null` for anything else, which a page ignores (pedelec-dev sends nothing
 * else, and a newer one may add frames).
 */
export function readServerFrame(data: unknown): ServerLinkFrame | null {
  let frame: unknown;
  try {
    frame = JSON.parse(String(data));
  } catch {
    return null;
  }
  const { type, id, tool, args, approvedBy } = (frame ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string') return null;
  if (type === 'cancel') return { type, id };
  if (type !== 'call' || typeof tool !== 'string') return null;
  return approvedBy === 'mcp-client' || approvedBy === 'operator'
    ? { type, id, tool, args, approvedBy }
    : { type, id, tool, args };
}
