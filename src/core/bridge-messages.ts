/**
 * The names of the Pedelec bridge's messages (docs/design/bridge-protocol.md, current-pedelec.md), one list
 * for both ends: the core SDK types what it sends and reads with them, and a Core written beside the
 * kit (`pedelec-dev`) types its handler per request with them (pedelec-elements/protocol), so a name
 * misspelled on either side fails the type check instead of the wire. No wire string is made here:
 * these are the strings the protocol already uses.
 */

/** What a page asks the bridge (a message with a `requestId`, answered by one `response`). */
export const BRIDGE_REQUEST_TYPES = [
  'get_approval_status',
  'get_settings',
  'list_providers',
  'create_session',
  'resume_session',
  'reactivate_session',
  'abort_session_setup',
  'prepare_session',
  'send_text',
  'submit_tool_result',
  'end_session',
  'list_assets',
  'create_asset_upload',
  'create_asset_download',
  'create_deno_module_upload',
  'complete_session_setup',
  'open_workspace',
  'workspace_list_files',
  'workspace_list_folders',
  'create_workspace_file_upload',
  'create_workspace_file_download',
  'workspace_run',
  'prepare_workspace_deno_modules',
  'create_workspace_deno_module_upload',
] as const;

/** A request's `type`. */
export type BridgeRequestType = (typeof BRIDGE_REQUEST_TYPES)[number];

/** What a page tells the bridge unasked (no `requestId`, no answer): today's SDK handshake. */
export const BRIDGE_NOTIFICATION_TYPES = ['sdk_hello', 'page_activity'] as const;

/** A notification's `type`. */
export type BridgeNotificationType = (typeof BRIDGE_NOTIFICATION_TYPES)[number];

/**
 * What the bridge says of a session (a message with a `sessionId`), and `error` also without one (a
 * transport-wide error). `done` is a 0.1.x extension's; the others are today's or both's.
 */
export const BRIDGE_EVENT_TYPES = [
  'session_snapshot',
  'status_changed',
  'chat_delta',
  'chat_message',
  'tool_call',
  'usage_updated',
  'provider_artifact',
  'operation_completed',
  'done',
  'ended',
  'error',
] as const;

/** An event's `type`. */
export type BridgeEventType = (typeof BRIDGE_EVENT_TYPES)[number];

/** The `type` of the bridge's answer to a request: one per `requestId`. */
export type BridgeResponseType = 'response';

/** The `type` of any message the bridge sends a page. */
export type BridgeInboundType = BridgeEventType | BridgeResponseType;
