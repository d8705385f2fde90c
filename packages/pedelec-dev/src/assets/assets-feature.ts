/**
 * Session assets as a feature of the Core: the ticketed upload and download URLs under
 * `/_pedelec/assets/`, answered by the {@link AssetStore}; stopping it deletes the asset folders.
 */
import type { DevFeature } from '../http/feature.js';
import { RESERVED_PREFIX } from '../http/http-routes.js';
import type { AssetStore } from './asset-store.js';

export function assetsFeature(store: AssetStore): DevFeature {
  return {
    routes: [
      { path: `${RESERVED_PREFIX}assets/`, handle: (req, res, path, query) => store.handle(req, res, path, query) },
    ],
    sockets: [],
    close: () => store.dispose(),
  };
}
