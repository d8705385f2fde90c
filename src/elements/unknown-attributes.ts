/**
 * A misspelled attribute on a kit element changes the contract without a word: `<pedelec-arg
 * requried maxium="10">` makes the argument optional and unbounded. Every attribute a declaration is
 * read from is checked against the element's own; one that is neither the element's, nor global,
 * nor a framework's is looked at by near-miss.ts (a chunk, loaded only then), which says "did you
 * mean" when it is close to one of the element's. Once per element and attribute.
 */
import { lazyModule } from '../core/lazy-module.js';

/**
 * Attributes any element may carry: the global ones a page sets on a kit element, `data-*`, `aria-*`,
 * event handlers, and those frameworks add (Angular's `ng-reflect-*`, `_ngcontent-*`, `_nghost-*`;
 * Vue's scoped `data-v-*`).
 */
const ANY_ELEMENTS =
  /^(id|class|style|slot|part|exportparts|hidden|inert|title|lang|dir|tabindex|role|is|nonce|translate|data-.*|aria-.*|on.*|ng-reflect-.*|_ngcontent-.*|_nghost-.*)$/;

const nearMiss = lazyModule(() => import('./near-miss.js'));
const looked = new WeakMap<Element, Set<string>>();

/** Looks at `element`'s attributes that are not among `known` (its own). */
export function checkAttributes(element: Element, known: readonly string[]): void {
  for (const { name } of element.attributes) {
    if (known.includes(name) || ANY_ELEMENTS.test(name)) continue;
    const seen = looked.get(element) ?? new Set<string>();
    looked.set(element, seen);
    if (seen.has(name)) continue;
    seen.add(name);
    nearMiss().then(
      (module) => module.sayNearMiss(element, name, known),
      () => {}, // not loaded: nothing to say
    );
  }
}
