import { hideDeclaration } from '../hidden.js';
import { defineElement } from '../define-element.js';
import { ARG_TAG } from '../tags.js';

/** The DOM's HTMLElement; a bare class where there is none, so the package root still imports in Node. */
const HTMLElement = globalThis.HTMLElement ?? class {};

/**
 * One property of a tool's args, declared in markup. The attributes are the declaration: the tool
 * reads them directly, so an `<pedelec-arg>` works before (or without) being upgraded. Properties
 * are views of the attributes. An attribute that cannot be read as its keyword's value
 * (`minimum="abc"`, an `enum` that starts like a JSON array but is not JSON) makes its tool invalid,
 * with the JSON path in `details.path`; one that can be read is kept as written.
 *
 * @summary Declares one property of a tool's args schema; nest them for objects and arrays of objects.
 * @tag pedelec-arg
 *
 * @attr {string} name - The property name (any string; `__proto__` is an ordinary name).
 * @attr {'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object'} [type='string'] - The JSON type of the value.
 * @attr {boolean} required - The agent must give this property.
 * @attr {string} description - Guidance for the agent.
 * @attr {string} enum - Allowed values: a JSON array, or comma-separated for strings.
 * @attr {number} minimum - Inclusive lower bound (numbers).
 * @attr {number} maximum - Inclusive upper bound (numbers).
 * @attr {number} min-length - Minimum length in Unicode code points (strings).
 * @attr {number} max-length - Maximum length in Unicode code points (strings).
 * @attr {string} pattern - An ECMAScript regular expression the string must contain a match of.
 * @attr {number} min-items - Minimum number of items (arrays).
 * @attr {number} max-items - Maximum number of items (arrays).
 * @attr {boolean} unique-items - No two items may be equal (arrays).
 * @attr {'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object'} items - Item type name for simple arrays (`items="string"`).
 * @attr {string} default - JSON (for strings, text that is not JSON is taken literally). Guidance only: never filled in.
 * @attr {string} examples - A JSON array of example values.
 * @slot - Nested `<pedelec-arg>`s: an object's properties, or an array's item object.
 */
export class PedelecArgElement extends HTMLElement {
  /**
   * Registers the element as `tag` (default `pedelec-arg`) in `registry` (default the page's
   * `customElements`). A tag already taken there is left as it is.
   */
  static define(tag = ARG_TAG, registry: CustomElementRegistry | undefined = globalThis.customElements): void {
    defineElement(tag, this, registry);
  }

  // Views of `min-length` … `unique-items` (defined below): as written; set any value, null removes it.
  /** @attr min-length */
  declare minLength: string | null;
  /** @attr max-length */
  declare maxLength: string | null;
  /** @attr min-items */
  declare minItems: string | null;
  /** @attr max-items */
  declare maxItems: string | null;
  /** @attr unique-items */
  declare uniqueItems: string | null;

  /** Pure markup for its tool to read: no reactive machinery, only hidden (see hidden.ts). */
  connectedCallback(): void {
    // Properties set before the upgrade (a framework binding, a script that ran before the kit) are
    // plain own properties that hide the accessors: move them into the attributes they stand for.
    for (const key of [
      'name',
      'type',
      'required',
      'description',
      ...KEYWORD_PROPERTIES.map(([property]) => property),
    ] as const) {
      if (!Object.hasOwn(this, key)) continue;
      const value = this[key] as never;
      delete this[key];
      this[key] = value;
    }
    hideDeclaration(this);
  }

  get name(): string {
    return this.getAttribute('name') ?? '';
  }
  set name(value: string) {
    this.setAttribute('name', value);
  }

  get type(): string {
    return this.getAttribute('type') ?? 'string';
  }
  set type(value: string) {
    this.setAttribute('type', value);
  }

  get required(): boolean {
    return this.hasAttribute('required');
  }
  set required(value: boolean) {
    this.toggleAttribute('required', Boolean(value));
  }

  get description(): string | null {
    return this.getAttribute('description');
  }
  set description(value: string | null) {
    // null or undefined (a framework unbinding it): no description, not the text "undefined".
    if (value == null) this.removeAttribute('description');
    else this.setAttribute('description', value);
  }
}

/**
 * The keyword attributes whose camelCase name differs: Vue binds `:minLength` as a property when the
 * element has one and as an attribute (`minlength`, which nothing reads) when not.
 */
const KEYWORD_PROPERTIES = [
  ['minLength', 'min-length'],
  ['maxLength', 'max-length'],
  ['minItems', 'min-items'],
  ['maxItems', 'max-items'],
  ['uniqueItems', 'unique-items'],
] as const;
for (const [property, attribute] of KEYWORD_PROPERTIES) {
  Object.defineProperty(PedelecArgElement.prototype, property, {
    get(this: Element) {
      return this.getAttribute(attribute);
    },
    set(this: Element, value: unknown) {
      if (value == null) this.removeAttribute(attribute);
      else this.setAttribute(attribute, String(value));
    },
    configurable: true,
  });
}
