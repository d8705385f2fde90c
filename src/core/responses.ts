/**
 * What the information requests answer, read strictly: a response of the wrong shape is an
 * `SDK_PROTOCOL_ERROR`, and fields the extension adds are dropped rather than passed on.
 */
import { protocolError, type PedelecError } from './errors.js';
import { fieldsOf, isObject, isText } from './json.js';
import type { ApprovalStatus, PedelecAvailability, PedelecSettings, ProviderInfo } from './types.js';

/** `list_providers`: every provider well formed, or the whole answer refused. */
export function readProviders(result: unknown): ProviderInfo[] {
  if (!Array.isArray(result)) throw protocolError('list_providers response was not an array');
  return result.map((provider: unknown) => {
    const { name, code, available, error } = fieldsOf(provider);
    const wellFormed =
      isText(name) && isText(code) && typeof available === 'boolean' && (typeof error === 'string' || error === null);
    if (!wellFormed) throw protocolError('list_providers response had invalid provider data');
    return { name, code, available, error };
  });
}

/** `get_settings`: the default provider and models (optional: current extensions no longer send them). */
export function readSettings(result: unknown): PedelecSettings {
  const { defaultProvider, defaultModels = {} } = fieldsOf(result);
  const wellFormed =
    (defaultProvider === null || isText(defaultProvider)) &&
    isObject(defaultModels) &&
    Object.entries(defaultModels).every(([code, model]) => code && typeof model === 'string');
  if (!wellFormed) throw protocolError('get_settings response had invalid shape');
  return { defaultProvider, defaultModels: { ...defaultModels } };
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
