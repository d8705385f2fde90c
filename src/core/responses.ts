/**
 * What the information requests answer, read strictly: a response of the wrong shape is an
 * `SDK_PROTOCOL_ERROR`, and fields the extension adds are dropped rather than passed on.
 */
import { protocolError, type PedelecError } from './errors.js';
import { fieldsOf, hasOwn, isFilled, isObject, isText } from './json.js';
import type { ApprovalStatus, PedelecAvailability, PedelecSettings, ProviderInfo } from './types.js';

/**
 * `list_providers`: every provider well formed, or the whole answer refused. `isDefault` is kept when
 * every provider carries it; otherwise (an older extension) it is left out here, for the client to
 * fill from the settings.
 */
export function readProviders(result: unknown): { providers: ProviderInfo[]; complete: boolean } {
  if (!Array.isArray(result)) throw protocolError('list_providers response was not an array');
  let complete = true;
  const providers = result.map((provider: unknown) => {
    const { name, code, available, error, isDefault } = fieldsOf(provider);
    const wellFormed =
      isText(name) &&
      isText(code) &&
      typeof available === 'boolean' &&
      (typeof error === 'string' || error === null) &&
      (isDefault === undefined || typeof isDefault === 'boolean');
    if (!wellFormed) throw protocolError('list_providers response had invalid provider data');
    if (isDefault === undefined) complete = false;
    return { name, code, available, isDefault: isDefault === true, error };
  });
  return { providers, complete };
}

/** `get_settings`: the default provider (null when none is set); anything else the answer holds is dropped. */
export function readSettings(result: unknown): PedelecSettings {
  const { defaultProvider } = fieldsOf(result);
  if (!(defaultProvider === null || isText(defaultProvider)))
    throw protocolError('get_settings response had invalid shape');
  return { defaultProvider };
}

/** (0.1.x) `get_settings`'s `defaultModels`: each provider's default model. Absent: none. */
export function readDefaultModels(result: unknown): Record<string, string> {
  const { defaultModels = {} } = fieldsOf(result);
  const wellFormed =
    isObject(defaultModels) &&
    Object.entries(defaultModels).every(([code, model]) => code && typeof model === 'string');
  if (!wellFormed) throw protocolError('get_settings response had invalid shape');
  // Every value was just checked to be a string.
  return { ...(defaultModels as Record<string, string>) };
}

/** A workspace as a create, resume or open reply describes it: `path` null for one Desktop manages. */
export type WorkspaceReply = { workspaceId: string; path: string | null };

/** A reply's `workspace`, well formed, or null. */
export function readWorkspace(value: unknown): WorkspaceReply | null {
  if (!isObject(value) || !isFilled(value.workspaceId)) return null;
  const { path } = value;
  if (path !== null && !isText(path)) return null;
  return { workspaceId: value.workspaceId, path };
}

/**
 * A `create_session` or `resume_session` reply. One of today's Pedelec carries `workspace` (and, for a
 * resume, `autoEndOnDisconnect`): it is held to today's shape. One of a 0.1.x extension carries neither
 * and only needs its `sessionId`; `workspace` is then null.
 */
export function readSessionReply(
  type: 'create_session' | 'resume_session',
  result: unknown,
): {
  sessionId: string;
  workspace: WorkspaceReply | null;
  explicitModelConfigApplied?: boolean;
  autoEndOnDisconnect?: boolean;
} {
  const reply = isObject(result) ? result : {};
  const { sessionId } = reply;
  if (!hasOwn(reply, 'workspace')) {
    if (!isText(sessionId)) throw protocolError(`${type} response did not include sessionId`);
    return { sessionId, workspace: null };
  }
  const { explicitModelConfigApplied, autoEndOnDisconnect } = reply;
  const resumeShaped = type !== 'resume_session' || typeof autoEndOnDisconnect === 'boolean';
  if (!isFilled(sessionId) || !resumeShaped) throw protocolError(`${type} response had an invalid shape`);
  if (explicitModelConfigApplied !== undefined && typeof explicitModelConfigApplied !== 'boolean')
    throw protocolError(`${type} response had an invalid model configuration flag`);
  const workspace = readWorkspace(reply.workspace);
  if (!workspace) throw protocolError(`${type} response had an invalid Workspace shape`);
  return {
    sessionId,
    workspace,
    ...(explicitModelConfigApplied !== undefined && { explicitModelConfigApplied }),
    ...(typeof autoEndOnDisconnect === 'boolean' && { autoEndOnDisconnect }),
  };
}

/** `get_approval_status`: anything missing reads as "no", except `installed` (the extension answered). */
export function readApprovalStatus(result: Record<string, unknown> | undefined): ApprovalStatus {
  return {
    installed: result?.installed !== false,
    approved: result?.approved === true,
    origin: typeof result?.origin === 'string' ? result.origin : null,
    appConnected: result?.appConnected === true,
  };
}

/** The codes that mean the bridge itself is not there: the extension (or the development Core) is unreachable. */
const LINK_DOWN: ReadonlySet<string> = new Set([
  'EXTENSION_UNAVAILABLE',
  'EXTENSION_DISCONNECTED',
  'BRIDGE_UNAVAILABLE',
]);
export const isLinkDown = (error: PedelecError): boolean => LINK_DOWN.has(error.code);

/**
 * `checkAvailability`'s answer from the approval status (none when that request failed) and the
 * first error met; `pageOrigin` stands in only where no extension answered for the origin.
 */
export function availability(
  status: ApprovalStatus | undefined,
  error: PedelecError | undefined,
  pageOrigin: string | null,
): PedelecAvailability {
  // No status: the approval request itself failed (the extension may still be there).
  const installed = status ? status.installed : !isLinkDown(error!);
  const approved = !!status?.installed && status.approved;
  const available = approved && !error;
  return {
    available,
    extension: { available: installed },
    approval: { approved, origin: status?.installed ? status.origin : (status?.origin ?? pageOrigin) },
    // Not yet approved: Desktop as the extension sees it; approved: whether the probe succeeded.
    desktop: {
      available: approved ? available : !!status?.installed && status.appConnected,
      launchAttempted: !!status?.installed,
    },
    ...(error && { error }),
  };
}
