/**
 * A session element's URL input that markup and script may both set, trusted differently (`bridge`,
 * `mcp`): the attribute may only name a loopback host, the property set from script any host — so
 * injected markup cannot send the page's tools to a foreign server. The value from script wins.
 */
import type { ReactiveElement } from '@lit/reactive-element';

export class ScriptedUrl {
  #fromScript: string | undefined;

  constructor(
    private readonly element: ReactiveElement,
    private readonly name: string,
  ) {}

  get value(): string | undefined {
    return this.#fromScript ?? this.element.getAttribute(this.name) ?? undefined;
  }

  /** Whether the value was set from script (then any host is allowed). */
  get scripted(): boolean {
    return this.#fromScript !== undefined;
  }

  /** The property's setter: `null` or `undefined` gives the attribute back its say. */
  set(value: string | null | undefined): void {
    const old = this.value;
    this.#fromScript = value ?? undefined;
    this.element.requestUpdate(this.name, old);
  }

  /** The attribute changed: an update, unless script has set the value. */
  attributeChanged(old: string | null): void {
    if (this.#fromScript === undefined) this.element.requestUpdate(this.name, old ?? undefined);
  }
}
