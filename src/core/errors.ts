/**
 * Errors are plain values with a stable `code` — never `Error` instances — both for rejected
 * promises and for `onError` callbacks, exactly as the public Pedelec SDK does.
 */
export type PedelecError = {
  code: string;
  message: string;
  details?: unknown;
};

/**
 * Every code the kit and `pedelec-dev` raise, for `switch` statements and autocompletion. Widened
 * with `(string & {})`: Pedelec itself and newer releases may report codes not listed here, so
 * `PedelecError.code` stays a `string`.
 */
export type PedelecErrorCode =
  // Using the API
  | 'INVALID_INPUT'
  | 'INVALID_OPTION'
  // Reaching Pedelec
  | 'EXTENSION_UNAVAILABLE'
  | 'EXTENSION_DISCONNECTED'
  | 'BRIDGE_UNAVAILABLE'
  | 'BRIDGE_ORIGIN_REFUSED'
  | 'SDK_BRIDGE_TIMEOUT'
  | 'SDK_TRANSPORT_ERROR'
  | 'SDK_PROTOCOL_ERROR'
  | 'CHUNK_LOAD_FAILED'
  | 'INVALID_MESSAGE'
  | 'MALFORMED_MESSAGE'
  | 'INVALID_JSON'
  | 'UNKNOWN_REQUEST_TYPE'
  // Providers and approval
  | 'DEFAULT_PROVIDER_NOT_SET'
  | 'DEFAULT_PROVIDER_UNAVAILABLE'
  | 'PROVIDER_NOT_FOUND'
  | 'PROVIDER_UNAVAILABLE'
  | 'PROVIDER_AUTH_FAILED'
  | 'PROVIDER_MODEL_NOT_FOUND'
  | 'PROVIDER_PROTOCOL_ERROR'
  | 'PROVIDER_COMMAND_FAILED'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_REQUEST_TOO_LARGE'
  | 'AGENT_UNAVAILABLE'
  | 'AGENT_LOOP_LIMIT'
  | 'APPROVAL_REJECTED'
  | 'APPROVAL_TIMEOUT'
  | 'APPROVAL_NOT_FOUND'
  // Sessions and turns
  | 'CREATE_SESSION_FAILED'
  | 'SEND_TEXT_FAILED'
  | 'PREPARE_FAILED'
  | 'END_SESSION_FAILED'
  | 'SESSION_BUSY'
  | 'SESSION_ENDED'
  | 'SESSION_ERROR'
  | 'SESSION_RESUME_FAILED'
  | 'SESSION_LIMIT_REACHED'
  | 'SESSION_ROUTE_LIMIT_REACHED'
  | 'THREAD_NOT_FOUND'
  | 'THREAD_BUSY'
  | 'THREAD_ENDED'
  | 'THREAD_ACCESS_DENIED'
  | 'NO_OPERATOR_TURN'
  // Tools
  | 'TOOL_ARGS_INVALID'
  | 'TOOL_RESULT_INVALID'
  | 'TOOL_HANDLER_ERROR'
  | 'TOOL_HANDLER_NOT_FOUND'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_UNAVAILABLE'
  | 'TOOL_TIMEOUT'
  | 'TOOL_CALL_DENIED'
  | 'TOOL_APPROVAL_UNAVAILABLE'
  | 'TOOL_APPROVAL_REJECTED'
  | 'TOOL_APPROVAL_TIMEOUT'
  | 'TOOL_RESPOND_LATE'
  | 'TOOL_REQUEST_NOT_FOUND'
  | 'TOOL_REQUEST_NOT_PENDING'
  | 'TOOL_RESULT_ALREADY_SUBMITTED'
  | 'SUBMIT_TOOL_RESULT_FAILED'
  | 'SCHEMA_KEYWORD_UNSUPPORTED'
  | 'SCHEMA_NOT_VALIDATED'
  // Forms as tools (`<pedelec-tool form>`, `<form toolname>` imported through WebMCP)
  | 'FORM_AWAITING_USER'
  | 'FORM_NOT_ANSWERED'
  // Assets and artifacts
  | 'ASSET_PATH_INVALID'
  | 'ASSET_PATH_CONFLICT'
  | 'ASSET_NOT_FOUND'
  | 'ASSET_TOO_LARGE'
  | 'ASSET_SIZE_MISMATCH'
  | 'ASSET_QUOTA_EXCEEDED'
  | 'ASSET_UPLOAD_FAILED'
  | 'ASSET_WRITE_FAILED'
  | 'ASSET_READ_FAILED'
  | 'ASSET_TEXT_DECODE_FAILED'
  | 'ASSET_INVALID_JSON'
  | 'ASSET_TOKEN_INVALID'
  | 'ASSET_TOKEN_EXPIRED'
  | 'ASSET_TICKET_LIMIT_REACHED'
  | 'ARTIFACTS_UNAVAILABLE'
  // Workspaces and Deno modules
  | 'WORKSPACE_UNAVAILABLE'
  | 'WORKSPACE_OPEN_FAILED'
  | 'WORKSPACE_PATH_INVALID'
  | 'WORKSPACE_FILE_TOO_LARGE'
  | 'WORKSPACE_FILE_UPLOAD_FAILED'
  | 'WORKSPACE_FILE_READ_FAILED'
  | 'WORKSPACE_FILE_TEXT_DECODE_FAILED'
  | 'WORKSPACE_FILE_INVALID_JSON'
  | 'DENO_MODULE_UPLOAD_FAILED'
  | 'DENO_MODULE_ARTIFACT_TOO_LARGE'
  | 'WORKSPACE_NOT_FOUND'
  | 'WORKSPACE_ACCESS_DENIED'
  | 'WORKSPACE_CREATE_FAILED'
  | 'WORKSPACE_FILE_NOT_FOUND'
  | 'WORKSPACE_FILE_NOT_REGULAR'
  | 'WORKSPACE_FILE_READ_TOO_LARGE'
  | 'WORKSPACE_LIST_TOO_LARGE'
  | 'WORKSPACE_RUN_OUTPUT_TOO_LARGE'
  | 'WORKSPACE_QUOTA_EXCEEDED'
  | 'DIRECTORY_PICKER_FAILED'
  | 'DENO_UNAVAILABLE'
  | 'DENO_PROCESS_SPAWN_FAILED'
  | 'DENO_EXECUTION_TIMEOUT'
  | 'DENO_MODULE_NAME_INVALID'
  | 'DENO_MODULE_NOT_FOUND'
  | 'DENO_MODULE_ALREADY_READY'
  | 'DENO_MODULE_ARTIFACT_INVALID'
  | 'DENO_MODULE_UPLOAD_SIZE_MISMATCH'
  | 'DENO_MODULE_UPLOAD_UNAUTHORIZED'
  | 'DENO_MODULE_SETUP_FAILED'
  | 'DENO_MODULE_SETUP_INCOMPLETE'
  | 'DENO_MODULE_MATERIALIZATION_FAILED'
  | 'DENO_IMPORT_MAP_INVALID'
  // The page's own code and markup
  | 'LISTENER_ERROR'
  | 'MARKDOWN_RENDER_FAILED'
  | 'FOREIGN_ELEMENT'
  // The browser's agent API (WebMCP)
  | 'WEBMCP_NAME_TAKEN'
  | 'WEBMCP_SCHEMA_REDUCED'
  | 'WEBMCP_UNAVAILABLE'
  // MCP clients through pedelec-dev
  | 'MCP_LINK_REFUSED'
  | 'PAGE_GONE'
  | 'PAGE_BUSY'
  | 'PAGE_ANSWER_TOO_LARGE'
  | 'MCP_NOT_RUNNING'
  | 'MCP_SERVER_UNPROVEN'
  | 'TOKEN_FILE_FAILED'
  | 'TOKEN_FILE_UNSAFE'
  // pedelec-dev's server
  | 'ORIGIN_NOT_ALLOWED'
  | 'INVALID_ORIGIN'
  | 'REMOTE_HOST_REFUSED'
  | 'METHOD_NOT_ALLOWED'
  | 'HOST_UNAVAILABLE'
  | 'PORT_IN_USE'
  | 'PORT_NOT_ALLOWED'
  | 'LISTEN_FAILED'
  | 'SCRIPT_INVALID'
  | 'INTERNAL_ERROR'
  | (string & {});

/**
 * Builds a {@link PedelecError}; `details` is an own property only when given. Not in the core entry:
 * `pedelec-dev` builds its errors with it, through `pedelec-elements/protocol`.
 */
export const pedelecError = (code: string, message: string, details?: unknown): PedelecError =>
  details === undefined ? { code, message } : { code, message, details };

/** True for any object with string `code` and `message` (the shape the bridge passes through). */
export const isPedelecError = (value: unknown): value is PedelecError =>
  typeof value === 'object' &&
  !!value &&
  typeof (value as PedelecError).code === 'string' &&
  typeof (value as PedelecError).message === 'string';

/** @internal The session has ended (locally or in Core): nothing more can be asked of it. */
export const sessionEnded = (sessionId?: string): PedelecError =>
  pedelecError('SESSION_ENDED', 'Pedelec session has ended.', sessionId ? { sessionId } : undefined);

/** @internal The session is running a turn, or an upload, already. */
export const sessionBusy = (sessionId: string): PedelecError =>
  pedelecError('SESSION_BUSY', 'Pedelec session is busy.', { sessionId });

/** @internal The port to Pedelec went away, or was closed: what a transport throws and the client reports. */
export const extensionDisconnected = (details?: unknown): PedelecError =>
  pedelecError('EXTENSION_DISCONNECTED', 'Pedelec extension disconnected.', details);

/** @internal Bad input from the caller. */
export const invalidInput = (message: string, details?: unknown) => pedelecError('INVALID_INPUT', message, details);

/** @internal A response or event from the bridge that breaks the protocol. */
export const protocolError = (message: string, details?: unknown) =>
  pedelecError('SDK_PROTOCOL_ERROR', message, details);

/**
 * @internal Codes with which Core refuses a turn before it starts (the session did not change): after
 * one, the session is back where it was, not in error.
 */
export const TURN_REFUSALS: ReadonlySet<string> = new Set([
  'THREAD_BUSY',
  'THREAD_ENDED',
  'THREAD_ACCESS_DENIED',
  'THREAD_NOT_FOUND',
  'INVALID_INPUT',
]);

/**
 * @internal A copy of `value` when it is a {@link PedelecError}, else `fallback`. The copy has an own
 * `details` key, `undefined` when `value` had none, as the public SDK's copies do.
 */
export const keepError = (value: unknown, fallback: PedelecError): PedelecError => {
  try {
    return isPedelecError(value) ? { code: value.code, message: value.message, details: value.details } : fallback;
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
