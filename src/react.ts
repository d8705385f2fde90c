/**
 * React 19 JSX typings for the pedelec elements. Types only (the module is empty at run time):
 *
 * ```ts
 * import type {} from 'pedelec-elements/react';
 * ```
 *
 * React 19 sets a prop as a property when the element has it (`handler={fn}` — define the elements
 * before rendering) and binds `onpedelec-tool-call={fn}` to the `pedelec-tool-call` event. Each
 * element accepts React's usual HTML props plus its own attributes, properties and events, typed with
 * the event classes. An `onpedelec-…` prop naming no event of that element is a compile error as soon
 * as its handler uses the event.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { PedelecElementTypes } from './framework-types.js';

export type * from './framework-types.js';

/** `onpedelec-tool-call` and so on: React 19's custom-element event props. */
export type ReactEventProps<Events> = { [K in keyof Events & string as `on${K}`]?: (event: Events[K]) => void };

/** Any other `onpedelec-*` prop gets a handler whose event can never be used, so `e.detail` is an error. */
interface OtherPedelecEvents {
  [event: `onpedelec-${string}`]: ((event: never) => void) | undefined;
}

/** An element's event props: its own events typed with their classes, any other `onpedelec-*` refused. */
type EventPropsOf<Events> = ReactEventProps<Events> & OtherPedelecEvents;

/** The JSX props of one pedelec element: React's HTML props, the element's own, and its events. */
export type PedelecJsxProps<
  E extends HTMLElement,
  Tag extends keyof PedelecElementTypes,
  Events = OtherPedelecEvents,
> = DetailedHTMLProps<HTMLAttributes<E>, E> & PedelecElementTypes[Tag]['props'] & Events;

/** Every pedelec tag (the list comes from the elements' own declarations). */
type PedelecIntrinsicElements = {
  [Tag in keyof PedelecElementTypes]: PedelecJsxProps<
    PedelecElementTypes[Tag]['element'],
    Tag,
    EventPropsOf<PedelecElementTypes[Tag]['events']>
  >;
};

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements extends PedelecIntrinsicElements {}
  }
}
