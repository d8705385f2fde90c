import { SessionEvent } from './pedelec-event.js';

export type PedelecToolsChangedDetail = {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: string[];
  readonly config: string[];
};

/**
 * Fired on the session, after start, when its tool set (tool names) or configuration (attribute names:
 * provider, model, guidance, bridge, novalidate) really changed. Core keeps the manifest it was given:
 * `restart()` applies the change.
 */
export class PedelecToolsChangedEvent extends SessionEvent<PedelecToolsChangedDetail> {
  static readonly eventName = 'pedelec-tools-changed';
  /**
   * What changed since the session was created, by name: `added`, `removed` and `changed` tools, and
   * `config` (of `provider`, `model`, `guidance`, `bridge`, `novalidate`).
   */
  declare readonly detail: PedelecToolsChangedDetail;
}

declare module './pedelec-event.js' {
  interface PedelecEventMap {
    'pedelec-tools-changed': PedelecToolsChangedEvent;
  }
}
