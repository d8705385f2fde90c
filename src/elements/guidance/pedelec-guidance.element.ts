import { ReactiveElement } from '@lit/reactive-element';
import { hideDeclaration } from '../hidden.js';
import { Membership } from '../registration.js';
import { defineElement } from '../define-element.js';
import { GUIDANCE_TAG } from '../tags.js';

/**
 * Text written inside indented HTML, as the author meant it: the indentation its lines share — the
 * page's nesting, not the guidance's — goes, so a nested list keeps its own; then blank lines at either
 * end. A first line that follows the opening tag directly has no indentation to count.
 */
function dedent(raw: string): string {
  // The indentation of each line after a line break, blank lines aside (none: one line, margin 0).
  const margin = Math.min(...(raw.match(/\n[ \t]*(?=\S)/g) ?? ['\n']).map((indent) => indent.length - 1));
  return raw.replace(new RegExp(`\\n[ \\t]{0,${margin}}`, 'g'), '\n').trim();
}

/**
 * The session's guidance for the agent, as text content. Hidden from the first paint (the define
 * entries inject `pedelec-guidance{display:none}`, so it is hidden before upgrade too). It is sent as
 * written, without the indentation of the HTML around it: blank lines at either end and the
 * indentation its lines share are taken off, so a nested list keeps its own.
 *
 * @summary Guidance for the agent: when to use which tool. Its text content is sent, never shown.
 * @tag pedelec-guidance
 * @slot - The guidance text.
 */
export class PedelecGuidanceElement extends ReactiveElement {
  /**
   * Registers the element as `tag` (default `pedelec-guidance`) in `registry` (default the page's
   * `customElements`). A tag already taken there is left as it is.
   */
  static define(tag = GUIDANCE_TAG, registry: CustomElementRegistry | undefined = globalThis.customElements): void {
    defineElement(tag, this, registry);
  }

  constructor() {
    super();
    // Joins its session as a controller; the session reaches it through the registration module.
    new Membership(this, { childList: true, subtree: true, characterData: true });
  }

  /** Renders nothing: no render root of its own (hidden.ts gives it a hidden shadow root). */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    hideDeclaration(this, true); // its text is what could show: never rendered, whatever the page's CSS
  }

  /** The guidance text: the element's text content without the indentation of the markup around it. */
  get text(): string {
    return dedent(this.textContent ?? '');
  }
}
