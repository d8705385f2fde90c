/**
 * Registers a custom element unless this tag is already defined — by this copy of the kit or by
 * another (a page that loads both the CDN file and a bundle must not throw).
 */
export function defineOnce(tag: string, constructor: CustomElementConstructor): void {
  if (typeof customElements === 'undefined' || customElements.get(tag)) return;
  customElements.define(tag, constructor);
}
