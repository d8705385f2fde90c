/**
 * Vue 3 template typings for the pedelec elements (read by Vue's language tools, `vue-tsc` / Volar).
 * Types only (the module is empty at run time):
 *
 * ```ts
 * import type {} from 'pedelec-elements/vue';
 * ```
 *
 * Vue still has to be told that these are custom elements, not components:
 * `compilerOptions.isCustomElement = (tag) => tag.startsWith('pedelec-')`. Bind the handler as a
 * property, `:handler.prop="fn"`, and events with `@pedelec-tool-call="onCall"`.
 */
import type { EmitFn, HTMLAttributes, ReservedProps } from 'vue';
import type { PedelecElementTypes } from './framework-types.js';

export type * from './framework-types.js';

/** `pedelec-tool-call` → `pedelecToolCall`. */
export type Camelize<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camelize<Tail>>}`
  : S;

/** Props by the camelCase names Vue matches templates against (`timeout-ms` → `timeoutMs`). */
export type CamelProps<P> = { [K in keyof P & string as Camelize<K>]: P[K] };

/** `@pedelec-tool-call` is the prop `onPedelecToolCall`. */
export type VueEventProps<Events> = {
  [K in keyof Events & string as `on${Capitalize<Camelize<K>>}`]?: (event: Events[K]) => void;
};

/**
 * A custom element as Vue's template type checker sees a component: the element's instance type,
 * plus `$props` and `$emit` that exist for type checking only (the pattern of Vue's guide, "Non-Vue
 * Web Components and TypeScript").
 */
export type DefineCustomElement<E extends HTMLElement, Props, Events> = new () => E & {
  /** @deprecated Exists for template type checking only; not a property of the element. */
  $props: HTMLAttributes & ReservedProps & Partial<CamelProps<Props>> & VueEventProps<Events>;
  /** @deprecated Exists for template type checking only; not a method of the element. */
  $emit: EmitFn<{ [K in keyof Events]: (event: Events[K]) => void }>;
};

/** Every pedelec tag (the list comes from the elements' own declarations). */
type PedelecGlobalComponents = {
  [Tag in keyof PedelecElementTypes]: DefineCustomElement<
    PedelecElementTypes[Tag]['element'],
    PedelecElementTypes[Tag]['props'],
    PedelecElementTypes[Tag]['events']
  >;
};

declare module 'vue' {
  interface GlobalComponents extends PedelecGlobalComponents {}
}
