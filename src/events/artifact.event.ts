import { SessionEvent } from './pedelec-event.js';
import type { ArtifactEventContext, ProviderArtifact } from '../core/index.js';
export type PedelecArtifactDetail = { readonly artifact: ProviderArtifact; readonly context: ArtifactEventContext };

/**
 * Fired on the session when the provider produced a file in the session's sandbox; read it with
 * `sessionElement.session.readAsset(artifact.path, 'file')`.
 */
export class PedelecArtifactEvent extends SessionEvent<PedelecArtifactDetail> {
  static readonly eventName = 'pedelec-artifact';
  /**
   * `artifact` (`{ path, id?, provider?, name?, mimeType?, sizeBytes?, kind?, source? }`; read it with
   * `session.readAsset(path, 'file')`) and `context`.
   */
  declare readonly detail: PedelecArtifactDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-artifact': PedelecArtifactEvent;
  }
}
