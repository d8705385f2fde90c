/**
 * Which provider and model a `create_session` sends (docs/design/sdk-0.4.md): those the page gave, or
 * the user's default provider, and — with a 0.1.x extension, which has no effort profiles — that
 * provider's default model.
 */
import { pedelecError } from './errors.js';
import { hasOwn } from './json.js';
import { readDefaultModels, readProviders, readSettings } from './responses.js';
import type { ReadCreateInput } from './session-input.js';

export type ProviderAndModel = { provider: string; model: string | undefined };

/**
 * The provider and model when they need no asking: a provider given, and a model or none needed
 * (today's Pedelec chooses by effort profile). Null otherwise. Synchronous, so that such a create is
 * posted at once, as the public SDK posts it.
 */
export function givenProviderAndModel(read: ReadCreateInput, legacy: boolean): ProviderAndModel | null {
  const { provider, model } = read;
  return provider !== undefined && (model !== undefined || !legacy) ? { provider, model } : null;
}

/**
 * The provider and model otherwise: without a provider, the user's default (it must be available);
 * without a model, none (profile mode) — except with a 0.1.x extension: there the provider's default
 * model from its settings. `ask` sends a request, held for approval as `create_session` is (the
 * element's 65 s). `legacy` is asked after the first answer: which Pedelec answers may be learned
 * from it.
 */
export async function resolveProviderAndModel(
  read: ReadCreateInput,
  legacy: () => boolean,
  ask: (type: 'get_settings' | 'list_providers') => Promise<unknown>,
): Promise<ProviderAndModel> {
  let { provider, model } = read;
  const answer = await ask('get_settings');
  if (provider === undefined) {
    const { defaultProvider } = readSettings(answer);
    if (defaultProvider === null)
      throw pedelecError(
        'DEFAULT_PROVIDER_NOT_SET',
        'Default provider is not set. Open the Pedelec desktop app Settings page and choose a default provider.',
      );
    const { providers } = readProviders(await ask('list_providers'));
    if (!providers.find((p) => p.code === defaultProvider)?.available) {
      throw pedelecError(
        'DEFAULT_PROVIDER_UNAVAILABLE',
        'Default provider is not currently available. Open the Pedelec desktop app Settings page and choose an available provider.',
        { provider: defaultProvider },
      );
    }
    provider = defaultProvider;
  }
  // Own keys only: a provider code such as "constructor" must not find Object.prototype's. Today's
  // extension has no default models (its answer came after the handshake was taken silently).
  if (model === undefined && legacy()) {
    const defaultModels = readDefaultModels(answer);
    if (hasOwn(defaultModels, provider)) model = defaultModels[provider];
  }
  return { provider, model };
}
