/**
 * Which Pedelec protocol the development Core speaks, in one place. `current` is what today's
 * extension and Desktop Core speak (current-pedelec.md); `0.1` is the protocol of SDK 0.1.23 and its
 * extension (bridge-protocol.md). Every difference between the two is one field of
 * {@link ProtocolProfile}; the bridge and the sessions read these fields and never the mode's name.
 */
import { randomUUID } from 'node:crypto';
import { BRIDGE_NOTIFICATION_TYPES } from 'pedelec-elements/protocol';
import { DevCoreError } from '../errors.js';

export const PROTOCOL_NAMES = ['current', '0.1'] as const;
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

export type ProtocolProfile = {
  readonly name: ProtocolName;
  /**
   * `sdk_hello` and `page_activity` (sent by today's SDK without requestId) are notifications taken
   * silently. When false they are answered the way a 0.1 extension answers any frame without a
   * requestId: an unmatchable SDK_PROTOCOL_ERROR response (see {@link LEGACY_HANDSHAKE_REFUSAL}).
   */
  readonly acceptsHandshake: boolean;
  /** `get_settings` carries `defaultModels` (0.1); today's Core answers `{ defaultProvider }` only. */
  readonly settingsHaveDefaultModels: boolean;
  /** `list_providers` items carry `isDefault`. */
  readonly providersHaveIsDefault: boolean;
  /**
   * `create_session` reads its input as today's Core does: profile mode (`effortLevel`: default, low or
   * high) or explicit mode (a non-blank `model`, trimmed, with an optional `effort`), never both; a
   * missing `provider` is the default one. 0.1 passes model and effort through as they came.
   */
  readonly checksModelChoice: boolean;
  /**
   * Every session has a Desktop-managed workspace (`{ workspaceId, path: null }`): create and resume
   * replies carry it, resume replies also the session's `autoEndOnDisconnect`, and a create reply says
   * `explicitModelConfigApplied: true` when the page named a model.
   */
  readonly sessionWorkspaces: boolean;
  /** `reactivate_session` and `abort_session_setup` are known requests (0.1 refuses them as unknown). */
  readonly reactivation: boolean;
  /**
   * Snapshots use Core's spelling: `waitingToolResult` for the status, and Core's field names for the
   * pending tool request (`requestId`, `toolName`, …). Off by default: today's statuses in snake_case
   * and `pendingToolRequest` as `{ toolRequestId, tool, args, operationId }`.
   */
  readonly coreStatuses: boolean;
  /**
   * Turns are operations: every turn event carries the turn's `operationId`, a turn ends with
   * `operation_completed` (after `idle`, or after the `error` event), `usage_updated` precedes the
   * end, `provider_artifact` announces published files, and every subscribe gets a `session_snapshot`.
   */
  readonly operations: boolean;
  /** Replies stream as `chat_delta` fragments. */
  readonly chatFragments: boolean;
  /** Each whole assistant message is sent as one `chat_message` (at a tool call and at the end of a turn). */
  readonly chatMessages: boolean;
};

/** What a 0.1 extension answers to a frame without requestId (such as today's `sdk_hello`): nobody can match it. */
export const LEGACY_HANDSHAKE_REFUSAL = Object.freeze({
  channelId: '',
  type: 'response',
  requestId: '',
  ok: false,
  error: Object.freeze({ code: 'SDK_PROTOCOL_ERROR', message: 'requestId is required' }),
});

/** The frames today's SDK sends unasked, without requestId or channelId. */
export const HANDSHAKE_TYPES: ReadonlySet<string> = new Set(BRIDGE_NOTIFICATION_TYPES);

/**
 * The profile for a protocol. `fragments: false` simulates a provider that does not stream (only
 * `chat_message`s reach the page); a 0.1 page would then see no reply at all, so that combination is
 * refused rather than silently made. `coreStatuses` needs today's protocol too: 0.1 has no snapshots.
 */
export function protocolProfile(
  name: ProtocolName = 'current',
  options: { fragments?: boolean; coreStatuses?: boolean } = {},
): ProtocolProfile {
  if (!(PROTOCOL_NAMES as readonly string[]).includes(name)) {
    throw new DevCoreError(
      'INVALID_OPTION',
      `--protocol ${String(name)}: expected one of ${PROTOCOL_NAMES.join(', ')}`,
    );
  }
  const fragments = options.fragments ?? true;
  if (name === '0.1') {
    if (!fragments)
      throw new DevCoreError(
        'INVALID_OPTION',
        '--no-fragments needs --protocol current: a 0.1 page sees replies only as chat_delta fragments',
      );
    if (options.coreStatuses)
      throw new DevCoreError(
        'INVALID_OPTION',
        '--core-statuses needs --protocol current: 0.1 sends no session_snapshot',
      );
    return Object.freeze({
      name,
      acceptsHandshake: false,
      settingsHaveDefaultModels: true,
      providersHaveIsDefault: false,
      checksModelChoice: false,
      sessionWorkspaces: false,
      reactivation: false,
      coreStatuses: false,
      operations: false,
      chatFragments: true,
      chatMessages: false,
    });
  }
  return Object.freeze({
    name,
    acceptsHandshake: true,
    settingsHaveDefaultModels: false,
    providersHaveIsDefault: true,
    checksModelChoice: true,
    sessionWorkspaces: true,
    reactivation: true,
    coreStatuses: options.coreStatuses ?? false,
    operations: true,
    chatFragments: fragments,
    chatMessages: true,
  });
}

/**
 * The operationId of a turn: the page's own (a non-empty string) or one made here, when the protocol
 * has operations; `undefined` when it has none (0.1 ignores the key, as old extensions do).
 */
export function operationIdFor(profile: ProtocolProfile, requested: unknown): string | undefined {
  if (!profile.operations) return undefined;
  return typeof requested === 'string' && requested !== '' ? requested : `op_${randomUUID()}`;
}
