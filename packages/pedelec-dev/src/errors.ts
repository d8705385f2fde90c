/**
 * Errors of the development Core. On the wire every error is a plain `{ code, message, details? }`
 * (the shape the page's SDK passes through); inside the server it is thrown as a {@link DevCoreError}
 * so one `catch` can turn any refusal into a failed response.
 */
import type { PedelecError } from 'pedelec-elements/core';
import { pedelecError } from 'pedelec-elements/protocol';

export class DevCoreError extends Error {
  readonly code: string;
  readonly details: unknown;

  constructor(code: string, message: string, details?: unknown) {
    super(message);
    this.name = 'DevCoreError';
    this.code = code;
    this.details = details;
  }

  toWire(): PedelecError {
    return pedelecError(this.code, this.message, this.details);
  }
}

/**
 * The JSON text of a frame the server sends — never a throw. A value that came from a page or an
 * agent (echoed in an error's details, a tool's args or result) can be nested too deep for
 * `JSON.stringify`, whose RangeError, uncaught, would stop the server. Such a frame goes out as
 * `fallback(problem)` instead: the same routing, the payload replaced by an `INTERNAL_ERROR`.
 */
export function frameText(
  message: Record<string, unknown>,
  fallback: (problem: PedelecError) => Record<string, unknown>,
): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return JSON.stringify(
      fallback(
        pedelecError('INTERNAL_ERROR', `pedelec-dev could not serialize this ${String(message.type)} frame (${why})`),
      ),
    );
  }
}

/** Any thrown value as a wire error; unexpected exceptions become `INTERNAL_ERROR` without a stack. */
export function toWireError(thrown: unknown): PedelecError {
  if (thrown instanceof DevCoreError) return thrown.toWire();
  if (
    typeof thrown === 'object' &&
    thrown !== null &&
    typeof (thrown as PedelecError).code === 'string' &&
    typeof (thrown as PedelecError).message === 'string'
  ) {
    const { code, message, details } = thrown as PedelecError;
    return pedelecError(code, message, details);
  }
  return pedelecError('INTERNAL_ERROR', thrown instanceof Error ? thrown.message : 'pedelec-dev internal error');
}
