/**
 * What each element's static `define()` does. A tag already taken in that registry is left as it is —
 * by this class, or by another copy of the kit: a page that loads both the CDN file and a bundle must
 * not throw. Defining one class under a second tag throws, as the platform does.
 */
export function defineElement(
  tag: string,
  element: CustomElementConstructor,
  registry: CustomElementRegistry | undefined,
): void {
  if (!registry || registry.get(tag)) return;
  registry.define(tag, element);
}
