/**
 * The base of every event the kit fires: a plain `Event` with a typed, read-only `detail`, exported as
 * its own class (`PedelecToolCallEvent`, …). Every one bubbles and none is cancelable; only
 * `pedelec-tool-call` is composed (it crosses shadow roots), so listeners above several sessions check
 * `event.target`. Each is typed in `HTMLElementEventMap`, `DocumentEventMap` and `ShadowRootEventMap`:
 * a listener on the document or on a shadow root gets it typed too.
 */
export abstract class PedelecEvent<TDetail> extends Event {
  readonly detail: TDetail;

  constructor(type: string, detail: TDetail, composed = false) {
    super(type, { bubbles: true, composed });
    this.detail = detail;
  }
}

/**
 * A session event whose type is its class's `eventName`: the event classes then declare only their
 * name and detail type.
 */
export abstract class SessionEvent<TDetail> extends PedelecEvent<TDetail> {
  constructor(detail: TDetail) {
    super((new.target as unknown as { eventName: string }).eventName, detail);
  }
}

/**
 * Every event the kit fires, by name: each event module adds its own. They all bubble, so a
 * listener on the document (or on a shadow root around the session) gets them typed too.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, one event module at a time
export interface PedelecEventMap {}

declare global {
  interface HTMLElementEventMap extends PedelecEventMap {}
  interface DocumentEventMap extends PedelecEventMap {}
  interface ShadowRootEventMap extends PedelecEventMap {}
}
