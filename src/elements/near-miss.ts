/**
 * The "did you mean" of unknown-attributes.ts: an attribute a kit element does not know, close to one
 * it does (an edit or two away), is said on the console with the element. Farther ones are left
 * alone: a page may put its own attributes on any element.
 */

/** How many single-character edits (insert, delete, replace) turn `a` into `b`. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** Warns when `name` is a near miss of one of `known` (`requried` → `required`). */
export function sayNearMiss(element: Element, name: string, known: readonly string[]): void {
  const [best] = known
    .map((candidate) => ({ candidate, edits: distance(name, candidate) }))
    .filter(({ edits }) => edits <= Math.min(2, Math.floor(name.length / 3)))
    .sort((a, b) => a.edits - b.edits);
  if (!best) return;
  const tag = element.localName;
  console.warn(`[pedelec] <${tag}> has no attribute ${name}: did you mean ${best.candidate}?`, element);
}
