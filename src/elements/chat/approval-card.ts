/**
 * The chat's approval card: a consequential tool's call, asked in the transcript where it arrived —
 * the tool, its arguments, Approve and Reject (with an optional reason), and the arguments as editable
 * JSON when the tool allows it. A chunk of its own, loaded when a chat is first asked: a conversation
 * without a consequential tool never downloads it. Written to be read: the build minifies it.
 */
import { css, html, render } from 'lit';
import type { ToolApprovalAnswer } from '../../core/index.js';
import type { ApprovalQuestion } from '../approval-surfaces.js';

/** Puts the card in the chat's transcript; settles once the chat shows it. */
export type PlaceCard = (card: HTMLElement) => Promise<unknown>;

/**
 * Adopted by the chat's shadow root with the first card (a style sheet, not a `<style>` element: a
 * page's CSP may forbid inline styles). The chat's own rules style its buttons, fields and focus ring.
 */
const cardStyles = css`
  [part~='approval'] {
    display: flex;
    flex-direction: column;
    gap: 0.5rem;
    padding: 0.75rem;
    border: var(--_line);
    border-left: 4px solid var(--_accent);
    border-radius: var(--_radius);
  }
  [part~='approval']:not([part~='waiting']) {
    border-left-color: var(--pedelec-chat-muted-color, light-dark(#565a63, #a9adb6));
  }
  [part~='approval'] :is(h3, p, pre) {
    margin: 0;
  }
  [part~='approval'] h3 {
    font-size: 1em;
  }
  /* Long values wrap: the arguments never scroll sideways, so the card needs no focusable scroller. */
  [part~='approval'] pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
  }
  [part~='approval'] :is(input, textarea) {
    padding: 0.4rem 0.5rem;
    font: inherit;
    color: inherit;
    background: none;
    border: var(--_line);
    border-radius: 8px;
  }
  [part~='approval'] textarea {
    resize: vertical;
  }
  [part~='approval'] :is(pre, textarea) {
    font-family: ui-monospace, monospace;
    font-size: 0.9em;
  }
  [part~='approval'] [aria-invalid='true'] {
    border-color: var(--pedelec-chat-error-color, light-dark(#b3261e, #ff8a80));
  }
  .invalid {
    color: var(--pedelec-chat-error-color, light-dark(#b3261e, #ff8a80));
  }
  .actions {
    display: flex;
    gap: 0.5rem;
  }
  .actions button {
    padding: 0.4rem 1rem;
  }
  .actions button + button {
    color: inherit;
    background: none;
    border: var(--_line);
  }
  [part~='approval'] :disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  .invalid:empty,
  .outcome:empty {
    display: none;
  }
`;

/** Ids unique within a chat's shadow root: several cards may wait at once. */
let cards = 0;

/**
 * Shows a card for `question` through `place`, and resolves with the person's answer: once, whatever
 * is clicked after it — and never if `question.signal` withdraws the question first.
 */
export function askInChat(question: ApprovalQuestion, place: PlaceCard): Promise<ToolApprovalAnswer> {
  return new Promise((resolve) => {
    // Withdrawn while the card's code was loading: nobody waits for an answer any more.
    if (!question.signal.aborted) new ApprovalCard(question, resolve).show(place);
  });
}

/** The element that has focus, inside shadow roots too. */
function focusedElement(): Element | null {
  let focused = document.activeElement;
  while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
  return focused;
}

class ApprovalCard {
  /**
   * The card: a group named by its heading and described by what the agent asks. Not an alertdialog:
   * a screen-reader user expects one to be modal — to hold focus until it is dismissed, to close on
   * Escape — while the card is one row of the conversation (the rest of the chat and the page stay
   * usable, and several cards may wait at once). It is announced as it arrives by the log it is in
   * (`role="log"`, polite), and focus moves to its heading, so its name and description are read too.
   */
  readonly element = document.createElement('div');
  /** The arguments as shown, and as the editable field starts. */
  readonly #args: string;
  readonly #id = `approval-${++cards}`;
  /** Where focus was when the card appeared: it goes back there once the card is answered or withdrawn. */
  readonly #returnTo = focusedElement();
  #state: 'waiting' | 'approved' | 'rejected' | 'withdrawn' = 'waiting';
  /** What became of the card, once it is over. */
  #outcome = '';
  /** Why the edited arguments cannot be sent ('' when they can). */
  #invalid = '';

  constructor(
    private readonly question: ApprovalQuestion,
    private readonly answer: (answer: ToolApprovalAnswer) => void,
  ) {
    this.#args = JSON.stringify(question.args ?? {}, null, 2);
    const { element } = this;
    element.setAttribute('role', 'group');
    element.setAttribute('aria-labelledby', `${this.#id}-title`);
    element.setAttribute('aria-describedby', `${this.#id}-about`);
    question.signal.addEventListener('abort', () => this.#close('withdrawn', 'No longer waiting for your answer.'), {
      once: true,
    });
    this.#render();
  }

  /** Puts the card in the transcript; once it shows, adopts its styles and takes focus. */
  show(place: PlaceCard): void {
    void place(this.element)
      // The chat's update failing is the chat's to report: the card still takes focus where it is.
      .catch(() => undefined)
      .then(() => {
        const root = this.element.getRootNode();
        const sheet = cardStyles.styleSheet;
        if (root instanceof ShadowRoot && sheet && !root.adoptedStyleSheets.includes(sheet))
          root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
        // The heading, not a button: someone typing in the composer when the card appears must not
        // approve or reject with their next Enter.
        if (this.#state === 'waiting') this.element.querySelector('h3')!.focus();
      });
  }

  #approve = (): void => {
    const field = this.element.querySelector('textarea');
    // Arguments the person did not change are sent as the agent gave them.
    if (!field || field.value === this.#args) return this.#close('approved', 'Approved.', { approved: true });
    let args: unknown;
    try {
      args = JSON.parse(field.value);
    } catch (thrown) {
      this.#invalid = `These arguments are not valid JSON (${(thrown as Error).message}): correct them, or reject.`;
      this.#render();
      field.focus();
      return;
    }
    this.#close('approved', 'Approved with your changes.', { approved: true, args });
  };

  #reject = (): void => {
    const reason = this.element.querySelector('input')!.value.trim();
    this.#close('rejected', reason ? `Rejected: ${reason}` : 'Rejected.', {
      approved: false,
      ...(reason && { reason }),
    });
  };

  /** The card is over: answered (with `answer`), or withdrawn. It answers once, and never after it was withdrawn. */
  #close(state: 'approved' | 'rejected' | 'withdrawn', outcome: string, answer?: ToolApprovalAnswer): void {
    if (this.#state !== 'waiting') return;
    // Read before the buttons are disabled: a disabled button loses focus.
    const hadFocus = this.element.contains(focusedElement());
    this.#state = state;
    this.#outcome = outcome;
    this.#invalid = '';
    if (answer !== undefined) this.answer(answer);
    this.#render();
    if (hadFocus) this.#focusBack();
  }

  /** Focus goes back where it was when the card appeared; else (it is gone, or was nowhere) to the composer. */
  #focusBack(): void {
    const back = this.#returnTo;
    const composer = (this.element.getRootNode() as ParentNode).querySelector<HTMLElement>('[part=input]');
    const usable =
      back instanceof HTMLElement && back.isConnected && back !== document.body && !back.matches(':disabled');
    (usable ? back : composer)?.focus();
  }

  #render(): void {
    const { tool, editable, declared } = this.question;
    const id = this.#id;
    const over = this.#state !== 'waiting';
    this.element.setAttribute('part', `approval ${this.#state}`);
    const args = editable
      ? html`<label for="${id}-args">Arguments (JSON: you may change them before you approve)</label>
          <textarea
            id="${id}-args"
            rows="4"
            spellcheck="false"
            .value=${this.#args}
            ?disabled=${over}
            aria-invalid=${this.#invalid ? 'true' : 'false'}
            aria-describedby="${id}-invalid"
          ></textarea>
          <p id="${id}-invalid" class="invalid">${this.#invalid}</p>`
      : html`<p>Arguments:</p>
          <pre>${this.#args}</pre>`;
    render(
      html`<h3 id="${id}-title" tabindex="-1">Run ${tool}?</h3>
        <p id="${id}-about">
          ${declared?.manifest.description ?? ''} The agent asks to run this tool: nothing happens unless you approve.
        </p>
        ${args}
        <label for="${id}-reason">Reason, if you reject (optional: the agent is told)</label>
        <input id="${id}-reason" ?disabled=${over} />
        <div class="actions">
          <button @click=${this.#approve} ?disabled=${over}>Approve</button>
          <button @click=${this.#reject} ?disabled=${over}>Reject</button>
        </div>
        <p class="outcome">${this.#outcome}</p>`,
      this.element,
    );
  }
}
