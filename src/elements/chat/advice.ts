/**
 * The chat's availability line: from what `checkAvailability()` answers, what the user should do
 * next — not what went wrong. Plain functions, tested without a DOM. The line is plain text (no
 * Markdown), and names only commands a user has: the kit is not on a package registry, so no `npx`.
 */
import type { PedelecAvailability, ProviderInfo } from '../../core/index.js';

/** What to tell the user, per state. */
export const ADVICE = {
  extension: 'Install the Pedelec browser extension, then reload this page.',
  approve: "This site needs your approval: send a message, then approve it in the Pedelec extension's popup.",
  pending: "Approve this site in the Pedelec extension's popup to continue.",
  desktop: 'Open the Pedelec Desktop app, then send your message again.',
  provider: "Choose an AI provider in Pedelec's settings, then send your message again.",
  dev: "The development Core is not reachable: start it (npm start in the kit's repository, or pedelec-dev), then send your message again.",
  fileOrigin:
    "The development Core does not accept pages opened from a file: serve the page's folder over http (pedelec-dev --serve FOLDER does), then open the page from there.",
} as const;

/**
 * A development Core that refuses this page's origin (it is running: starting another one would only
 * find its port taken): the flag that admits the page. `--allow-origin` takes http(s) origins; a page
 * opened from a file (origin `null`) has to be served instead.
 */
export function originAdvice(origin: string | null): string {
  if (!origin || !/^https?:\/\//i.test(origin)) return ADVICE.fileOrigin;
  return `The development Core refuses this page's origin: restart pedelec-dev with --allow-origin ${origin}, then send your message again.`;
}

/**
 * The advice for an availability answer; '' when the agent is available. `bridge` is the session's
 * `bridge` (a `ws:` URL means the development Core, not the extension).
 */
export function adviceFor(availability: PedelecAvailability, bridge: string | undefined): string {
  const { available, error, extension, approval } = availability;
  if (available) return '';
  if (error?.code === 'INVALID_INPUT') return error.message;
  if (error?.code === 'BRIDGE_ORIGIN_REFUSED') return originAdvice(approval.origin);
  if (error?.code === 'BRIDGE_UNAVAILABLE' || (!extension.available && /^wss?:/i.test(bridge ?? ''))) return ADVICE.dev;
  if (!extension.available) return ADVICE.extension;
  if (!approval.approved) return error?.message ?? ADVICE.approve;
  return ADVICE.desktop;
}

/** Whether the default provider is set and available (availability does not say): '' or the provider advice. */
export function providerAdvice(defaultProvider: string | null, providers: readonly ProviderInfo[]): string {
  return defaultProvider && providers.some((p) => p.code === defaultProvider && p.available) ? '' : ADVICE.provider;
}
