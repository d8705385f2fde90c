import { ReactiveElement } from 'lit';
import { hiddenStyles } from '../hidden.js';
import { register, type SessionOwner } from '../registration.js';

/**
 * The session's guidance for the agent, as text content. Hidden from the first paint (the define
 * entries inject `pedelec-guidance{display:none}`, so it is hidden before upgrade too).
 *
 * @summary Guidance for the agent: when to use which tool. Its text content is sent, never shown.
 * @tag pedelec-guidance
 * @slot - The guidance text.
 */
export class PedelecGuidanceElement extends ReactiveElement {
  static override styles = hiddenStyles;

  private owner: SessionOwner | null = null;
  private observer: MutationObserver | null = null;

  /** The guidance text (the element's trimmed text content). */
  get text(): string {
    return (this.textContent ?? '').trim();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.owner = register(this, this.owner);
    this.observer ??= new MutationObserver(() => this.owner?.memberChanged(this));
    this.observer.observe(this, { childList: true, subtree: true, characterData: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.observer?.disconnect();
    const owner = this.owner;
    this.owner = null;
    owner?.release(this);
  }

  /** @internal Announce again: a nearer session may have been defined since. */
  reregister(): void {
    if (this.isConnected) this.owner = register(this, this.owner);
  }
}
