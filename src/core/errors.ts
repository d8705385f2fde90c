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
export const pedelecError = (code: string, message: string, details?: unknown): PedelecError =>
  details === undefined ? { code, message } : { code, message, details };

/** True for any object with string `code` and `message` (the shape the bridge passes through). */
export const isPedelecError = (value: unknown): value is PedelecError =>
  typeof value === 'object' &&
  !!value &&
  typeof (value as PedelecError).code === 'string' &&
  typeof (value as PedelecError).message === 'string';

/** @internal Bad input from the caller. */
export const invalidInput = (message: string, details?: unknown) => pedelecError('INVALID_INPUT', message, details);

/** @internal A response or event from the bridge that breaks the protocol. */
export const protocolError = (message: string) => pedelecError('SDK_PROTOCOL_ERROR', message);

/** @internal A copy of `value` when it is a {@link PedelecError} (with its details), else `fallback`. */
export const keepError = (value: unknown, fallback: PedelecError): PedelecError => {
  try {
    return isPedelecError(value) ? pedelecError(value.code, value.message, value.details) : fallback;
  } catch {
    return fallback; // a getter of `value` threw: what was thrown is not readable
  }
};

/**
 * Normalizes anything caught into a {@link PedelecError} (sdk-api.md "Error shape"):
 * a `{code, message}` object is kept with its details; an `Error` keeps its message under the
 * fallback code; a string becomes the message; nothing gives the fallbacks; anything else gives
 * the fallbacks with the value as `details`.
 */
export const normalizeError = (value: unknown, fallbackCode: string, fallbackMessage: string): PedelecError => {
  let fallback: PedelecError;
  try {
    fallback =
      value instanceof Error
        ? pedelecError(fallbackCode, value.message || fallbackMessage)
        : typeof value === 'string'
          ? pedelecError(fallbackCode, value)
          : pedelecError(fallbackCode, fallbackMessage, value ?? undefined);
  } catch {
    fallback = pedelecError(fallbackCode, fallbackMessage); // e.g. an Error whose message getter throws
  }
  return keepError(value, fallback);
};
