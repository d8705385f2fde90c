/**
 * What the endpoint's failures become: an {@link AgentError} (source `provider`) for an HTTP error
 * status, for an error object inside a 200 answer, and for an answer that cannot be used — each
 * with the endpoint's own explanation where it gave one, and with the API key scrubbed from every
 * message. Apart from the request and the reading of its answer, which both fail this way.
 */
import { AgentError } from './types.js';

/** How much of the endpoint's own error text is passed on. */
export const MAX_DETAIL = 300;

/** A JSON object (not null, not an array), as the endpoint's answers and their parts are read. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Removes the key from a text that came from (or went near) the endpoint: the key itself, and any
 * word sharing four consecutive characters with it (masked echoes like `sk-pr****wxyz`). Over-eager on
 * purpose: a redacted harmless word costs nothing.
 */
export function keyRedactor(key: string | undefined): (text: string) => string {
  if (!key) return (text) => text;
  const parts = new Set<string>();
  if (key.length >= 8) for (let i = 0; i + 4 <= key.length; i++) parts.add(key.slice(i, i + 4));
  return (text) => {
    let out = text.split(key).join('[redacted]');
    if (parts.size > 0) {
      out = out.replace(/[^\s"'`,;()<>[\]{}]+/g, (word) => {
        for (const part of parts) if (word.includes(part)) return '[redacted]';
        return word;
      });
    }
    return out;
  };
}

/** The endpoint's own explanation from an error body (`{"error":{"message":…}}` and the usual variants). */
export function upstreamMessage(body: string): string {
  let message = body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed)) {
      const error = parsed.error;
      if (isObject(error) && typeof error.message === 'string') message = error.message;
      else if (typeof error === 'string') message = error;
      else if (typeof parsed.message === 'string') message = parsed.message;
      else if (typeof parsed.detail === 'string') message = parsed.detail;
    }
  } catch {
    // not JSON: the text itself
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
}

/** The errors of one session's requests; `model` is the one it asks for. */
export class EndpointErrors {
  private readonly redact: (text: string) => string;

  constructor(
    private readonly model: string,
    apiKey: string | undefined,
  ) {
    this.redact = keyRedactor(apiKey);
  }

  fail(code: string, message: string, details?: Record<string, unknown>): AgentError {
    return new AgentError(code, this.redact(message), { source: 'provider', details });
  }

  statusFailure(response: Response, detail: string): AgentError {
    const status = response.status;
    const said = detail ? `: ${detail}` : '.';
    if (status === 401 || status === 403) {
      return this.fail(
        'PROVIDER_AUTH_FAILED',
        `The endpoint refused the request (HTTP ${status}); check PEDELEC_DEV_API_KEY${said}`,
        { status },
      );
    }
    if (status === 404) {
      return this.fail(
        'PROVIDER_MODEL_NOT_FOUND',
        `The endpoint answered 404 for model "${this.model}" (is the model installed, and does the base URL end in /v1?)${said}`,
        { status, model: this.model },
      );
    }
    if (status === 429) {
      const retryAfter = response.headers.get('retry-after');
      const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
      return this.fail(
        'PROVIDER_RATE_LIMITED',
        `The endpoint is rate limiting requests (HTTP 429)${said}`,
        seconds === undefined ? { status } : { status, retryAfterSeconds: seconds },
      );
    }
    if (status >= 500 || status === 408)
      return this.fail('PROVIDER_UNAVAILABLE', `The endpoint failed (HTTP ${status})${said}`, { status });
    return this.fail('PROVIDER_PROTOCOL_ERROR', `The endpoint rejected the request (HTTP ${status})${said}`, {
      status,
    });
  }

  /** An error object inside a 200 stream or body (`{"error":{…}}`). */
  embeddedFailure(error: unknown): AgentError {
    const e = isObject(error) ? error : {};
    const message = typeof e.message === 'string' ? e.message : typeof error === 'string' ? error : 'unknown error';
    const status = typeof e.status === 'number' ? e.status : typeof e.code === 'number' ? e.code : undefined;
    const detail = upstreamMessage(JSON.stringify({ error: { message } }));
    if (status === 401 || status === 403)
      return this.fail('PROVIDER_AUTH_FAILED', `The endpoint refused the request: ${detail}`, { status });
    if (status === 404)
      return this.fail('PROVIDER_MODEL_NOT_FOUND', `The endpoint does not know model "${this.model}": ${detail}`, {
        status,
      });
    if (status === 429 || e.code === 'rate_limit_exceeded')
      return this.fail('PROVIDER_RATE_LIMITED', `The endpoint is rate limiting requests: ${detail}`);
    return this.fail('PROVIDER_UNAVAILABLE', `The endpoint reported an error: ${detail}`);
  }

  protocolError(what: string): AgentError {
    return this.fail('PROVIDER_PROTOCOL_ERROR', `The endpoint's answer could not be used: ${what}.`);
  }
}
