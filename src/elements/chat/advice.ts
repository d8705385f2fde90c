/**
 * The chat's availability line: from what `checkAvailability()` answers, what the user should do
 * next — not what went wrong. Plain functions, tested without a DOM. The line is plain text (no
 * Markdown), and names only commands a user has: the kit is not on a package registry, so no `npx`.
 */
import type { PedelecAvailability, PedelecError, ProviderInfo } from '../../core/index.js';

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
  modelNotApplied:
    'Your Pedelec cannot use the model this page asks for: update the Pedelec extension and Desktop app, then send your message again.',
  workspace:
    'Pedelec could not open the folder this page works in: check it in the Pedelec Desktop app (or update Pedelec), then send your message again.',
  denoModule:
    "This page's tools for Pedelec are not set up correctly, so the agent cannot start: tell the site's owner.",
} as const;

/**
 * What the person chatting should do about a failure the page cannot fix by itself, in plain words;
 * '' when the error's own message is the best there is. For the failures of today's Pedelec that
 * read as jargon: a model Pedelec did not apply, a workspace it refused, a Deno module not prepared.
 */
export function errorAdvice(error: PedelecError): string {
  const { code, details } = error;
  if ((details as { feature?: unknown } | undefined)?.feature === 'explicitModelConfig') return ADVICE.modelNotApplied;
  if (code.startsWith('WORKSPACE_')) return ADVICE.workspace;
  if (code.startsWith('DENO_') || (code === 'INVALID_INPUT' && /Deno module/i.test(error.message)))
    return ADVICE.denoModule;
  return '';
}

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
