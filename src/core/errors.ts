/**
 * Errors are plain values with a stable `code` — never `Error` instances — both for rejected
 * promises and for `onError` callbacks, exactly as the public Pedelec SDK does.
 */
export type PedelecError = {
  code: string;
  message: string;
  details?: unknown;
};

/** Builds a {@link PedelecError}; `details` is an own property only when given. */
export function pedelecError(code: string, message: string, details?: unknown): PedelecError {
  return details === undefined ? { code, message } : { code, message, details };
}

/** True for any object with string `code` and `message` (the shape the bridge passes through). */
export function isPedelecError(value: unknown): value is PedelecError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PedelecError).code === 'string' &&
    typeof (value as PedelecError).message === 'string'
  );
}

/**
 * Normalizes anything caught into a {@link PedelecError} (sdk-api.md "Error shape"):
 * a `{code, message}` object is kept with its details; an `Error` keeps its message under the
 * fallback code; a string becomes the message; nothing gives the fallbacks; anything else gives
 * the fallbacks with the value as `details`.
 */
export function normalizeError(value: unknown, fallbackCode: string, fallbackMessage: string): PedelecError {
  if (isPedelecError(value)) {
    const { code, message, details } = value;
    return pedelecError(code, message, details);
  }
  if (value instanceof Error) return pedelecError(fallbackCode, value.message || fallbackMessage);
  if (typeof value === 'string') return pedelecError(fallbackCode, value);
  if (value === undefined || value === null) return pedelecError(fallbackCode, fallbackMessage);
  return pedelecError(fallbackCode, fallbackMessage, value);
}
